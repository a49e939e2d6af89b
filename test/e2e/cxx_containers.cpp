/* Force-included before the standard library, memtrack.h leaves every C++ construct
 * working: the containers, placement new, nothrow new, a class with its own operator new
 * and delete, aligned new (C++17), std::malloc. Each allocation the program asks for is
 * tracked (checked with memtrack_stats) and a clean run prints nothing.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

static int failures;

static size_t live_blocks()
{
    memtrack_stats_t st;
    memtrack_stats(&st);
    return st.current_blocks;
}

static void expect(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "FAILED: %s\n", what);
        failures++;
    }
}

/* A class that manages its own memory: its operator new uses malloc (tracked as malloc,
 * through the header's macro) and its operator delete releases it with free. */
struct Pooled {
    double x, y;
    static void *operator new(std::size_t size) { return std::malloc(size); }
    static void operator delete(void *p) { std::free(p); }
};

struct Shape {
    virtual ~Shape() {}
    virtual int sides() const = 0;
};
struct Square : Shape {
    int sides() const override { return 4; }
};

#if __cplusplus >= 201703L
struct alignas(64) Line {
    char bytes[64];
};
#endif

int main()
{
    size_t base = live_blocks();

    int *one = new int(1);
    expect(live_blocks() == base + 1, "new is tracked");
    delete one;
    expect(live_blocks() == base, "delete releases");

    int *none = new (std::nothrow) int[16];
    expect(none != nullptr && live_blocks() == base + 1, "nothrow new[] is tracked");
    delete[] none;

    alignas(std::string) unsigned char storage[sizeof(std::string)];
    std::string *placed = new (storage) std::string("placement");
    expect(*placed == "placement", "placement new constructs in place");
    placed->~basic_string();
    expect(live_blocks() == base, "placement new allocates nothing");

    Pooled *pooled = new Pooled{1.0, 2.0};
    expect(live_blocks() == base + 1, "class operator new (malloc) is tracked");
    delete pooled;

    std::vector<int> numbers(100, 7);
    std::map<std::string, std::vector<int>> index;
    index["sevens"] = numbers;
    std::string long_text(200, 'x');
    std::unique_ptr<Shape> shape(new Square);
    std::shared_ptr<std::string> shared = std::make_shared<std::string>(64, 's');
    std::function<size_t()> counter = [numbers, long_text]() { return numbers.size() + long_text.size(); };
    expect(counter() == 300 && shape->sides() == 4, "the containers work");
    expect(live_blocks() >= base + 6, "the standard library's allocations are tracked");

    void *raw = std::malloc(32);
    expect(raw != nullptr && live_blocks() >= base + 7, "std::malloc is tracked");
    std::free(raw);

#if __cplusplus >= 201703L
    Line *line = new Line;
    expect(reinterpret_cast<std::uintptr_t>(line) % 64 == 0, "aligned new is aligned");
    delete line;
    Line *lines = new Line[3];
    expect(reinterpret_cast<std::uintptr_t>(lines) % 64 == 0, "aligned new[] is aligned");
    delete[] lines;
#endif

    index.clear();
    return failures;
}
