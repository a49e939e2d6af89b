/* An xmalloc-style wrapper called from three places: each leak is shown at the wrapper's
 * caller (three groups), with its stack, and the report names the wrapper. A wrapper named
 * by option alloc_fn (here, one with a single caller, which the rule would not find) is
 * seen through too.
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

static char *buffer_new(size_t n)
{
    return xmalloc(n);
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
    (void)buffer_new(40);
    return 0;
}
