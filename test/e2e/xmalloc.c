/* A wrapper written with the _at entry points reports its caller's line, not its own. */
#include <stdio.h>
#include <stdlib.h>

#ifdef MEMORY_CONTROL_ON
#define xmalloc(n) xmalloc_at((n), __FILE__, __LINE__, __func__)
static void *xmalloc_at(size_t n, const char *file, int line, const char *func)
{
    void *p = memtrack_malloc_at(n, file, line, func);
#else
static void *xmalloc(size_t n)
{
    void *p = malloc(n);
#endif
    if (p == NULL) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static void *nodes[4];

static void add_node(void)
{
    nodes[0] = xmalloc(24);
}

int main(void)
{
    add_node();
    (void)xmalloc(7);
    return 0;
}
