/* "found by" names the stack of the free that found a bad pointer, whatever the pointer
 * was: inside a block, static, on the stack. A release wrapper (release(), which only frees
 * what it is given) is seen through to its caller.
 */
#include <stdlib.h>

static void release(void *p)
{
    free(p);
}

static void drop_static(void)
{
    static char name[8];
    free(name);
}

static void drop_local(void)
{
    char scratch[8];
    scratch[0] = 0;
    free(scratch);
}

static void cleanup(char *buffer)
{
    release(buffer + 16);
    drop_static();
    drop_local();
}

int main(void)
{
    char *buffer = malloc(64);
    cleanup(buffer);
    free(buffer);
    return 0;
}
