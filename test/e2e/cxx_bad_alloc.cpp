/* Out of memory, operator new follows the standard: it calls the new-handler until the
 * handler gives up, then throws std::bad_alloc; the nothrow forms return a null pointer,
 * also when the handler throws. A request too large for any heap fails at once here.
 * e2e-stdout
 */
#include <cstdint>
#include <cstdio>
#include <new>

static volatile std::size_t huge = SIZE_MAX / 4; /* no heap has that much */
static int handler_calls;

/* Gives up on its third call, the way a handler does once its reserve is spent. */
static void patient_handler()
{
    if (++handler_calls == 3)
        std::set_new_handler(nullptr);
}

static void throwing_handler()
{
    handler_calls++;
    throw std::bad_alloc();
}

int main()
{
    std::set_new_handler(patient_handler);
    try {
        void *p = ::operator new(huge);
        std::printf("unexpected: %p\n", p);
    } catch (const std::bad_alloc &) {
        std::printf("new: handler called %d times, then std::bad_alloc\n", handler_calls);
    }

    handler_calls = 0;
    std::set_new_handler(patient_handler);
    try {
        char *p = new char[huge];
        std::printf("unexpected: %p\n", static_cast<void *>(p));
    } catch (const std::bad_alloc &) {
        std::printf("new[]: handler called %d times, then std::bad_alloc\n", handler_calls);
    }

    handler_calls = 0;
    std::set_new_handler(throwing_handler);
    int *q = new (std::nothrow) int[huge / sizeof(int)];
    std::printf("nothrow new[]: %s, handler called %d times\n", q == nullptr ? "null" : "memory",
                handler_calls);
#if __cplusplus >= 201703L
    void *r = ::operator new(huge, std::align_val_t(64), std::nothrow);
#else
    void *r = ::operator new(huge, std::nothrow);
#endif
    std::printf("nothrow new: %s, handler called %d times\n", r == nullptr ? "null" : "memory",
                handler_calls);
    std::set_new_handler(nullptr);

    int *fine = new int(7); /* memory is still there for normal requests */
    std::printf("then: %d\n", *fine);
    delete fine;
    return 0;
}
