// C++ containers a program leaks: the object made by new at the program's line, and the
// blocks its containers made inside the standard library's headers, each with the stack
// down to the program's own line that grew the container. (Not one of the cxx_* tests,
// which the compiler matrix runs: the library's frames differ from one compiler to another.)
// e2e-cflags: -include memtrack.h -fno-omit-frame-pointer
#include <map>
#include <string>
#include <vector>

struct Inventory {
    std::vector<int> items;
    std::map<int, int> counts;
};

static Inventory *load()
{
    Inventory *inventory = new Inventory;
    for (int i = 0; i < 3; i++)
        inventory->items.push_back(i);
    inventory->counts[7] = 1;
    return inventory;
}

int main()
{
    (void)load();
    return 0;
}
