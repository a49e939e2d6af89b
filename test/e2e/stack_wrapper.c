/* An xmalloc-style wrapper called from three places: each leak is shown at the first caller
 * outside every wrapper (make_node() and make_edge() only return xmalloc's block: wrappers
 * too), with its stack, and the report names the wrappers. A function named by option
 * alloc_fn (here one that returns nothing, which the rule would not find) is seen through
 * too.
 * e2e-options: alloc_fn=buffer_*
 */
#include <stdio.h>
#include <stdlib.h>

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static void buffer_new(char **out, size_t n)
{
    *out = xmalloc(n);
}

static void *make_node(void)
{
    return xmalloc(24);
}

static void *make_edge(void)
{
    return xmalloc(16);
}

static void *make_graph(void)
{
    (void)make_edge();
    return make_node();
}

int main(void)
{
    (void)make_graph();
    (void)xmalloc(7);
    char *buffer;
    buffer_new(&buffer, 40);
    return 0;
}
