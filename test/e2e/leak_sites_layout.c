/* In "leaks by site" sizes are right-aligned to the largest, and each site's callers start
 * past the sizes' column: a small site's size must not land where the callers of the site
 * above it start, or it reads like one more caller. (wrappers=0: big() and small() would
 * otherwise be seen through, and their callers become the sites.)
 * e2e-options: wrappers=0
 */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE void *big(void)
{
    void *p = malloc(12000);
    __asm__ __volatile__("" : : "r"(p) : "memory"); /* not a tail call */
    return p;
}

NOINLINE void *small(void)
{
    void *p = malloc(4);
    __asm__ __volatile__("" : : "r"(p) : "memory");
    return p;
}

int main(void)
{
    void *keep[2];
    keep[0] = big();
    keep[1] = small();
    (void)keep;
    return 0;
}
