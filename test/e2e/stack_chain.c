/* A leak three calls below main: the report names the line that made the block and, below
 * it, each caller's line, down to main and no further (not the C library's start-up). (The
 * block is kept, not returned: a function that returns the block it made is an allocation
 * wrapper, which the report sees through; stack_wrappers.sh tests that.)
 */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static void *kept;

NOINLINE void level3(size_t n)
{
    kept = malloc(n);
    __asm__ __volatile__("" : : : "memory"); /* not a tail call */
}

NOINLINE void level2(size_t n)
{
    level3(n + 1);
    __asm__ __volatile__("" : : : "memory");
}

NOINLINE void level1(size_t n)
{
    level2(n + 1);
    __asm__ __volatile__("" : : : "memory");
}

int main(void)
{
    level1(10);
    __asm__ __volatile__("" : : : "memory");
    return 0;
}
