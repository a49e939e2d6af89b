/* A leak three calls below main: the report names the line that made the block and, below
 * it, each caller's line, down to main and no further (not the C library's start-up).
 */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE void *level3(size_t n)
{
    void *p = malloc(n);
    __asm__ __volatile__("" : : "r"(p) : "memory"); /* not a tail call */
    return p;
}

NOINLINE void *level2(size_t n)
{
    void *p = level3(n + 1);
    __asm__ __volatile__("" : : "r"(p) : "memory");
    return p;
}

NOINLINE void *level1(size_t n)
{
    void *p = level2(n + 1);
    __asm__ __volatile__("" : : "r"(p) : "memory");
    return p;
}

int main(void)
{
    void *p = level1(10);
    __asm__ __volatile__("" : : "r"(p) : "memory");
    return 0;
}
