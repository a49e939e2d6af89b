/* Errors name the stacks that matter: a double free and an overrun, the blocks made and
 * freed through small helpers (allocation wrappers, seen through), show the lines that called
 * the helpers, each with its callers' lines down to main: where the block was made, where it
 * was freed and the free that found the error.
 */
#include <stdlib.h>
#include <string.h>

static char *make_name(size_t n)
{
    return malloc(n);
}

static void release(char *p)
{
    free(p);
}

static void drop_twice(void)
{
    char *p = make_name(8);
    release(p);
    release(p);
}

static void overrun(void)
{
    char *p = make_name(4);
    memcpy(p, "12345", 5);
    release(p);
}

int main(void)
{
    drop_twice();
    overrun();
    return 0;
}
