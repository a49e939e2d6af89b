/* free, malloc and realloc used as values: a list destroyed with `free`, an allocator
 * hook table, a variable and a struct member named like them. Nothing leaks, nothing
 * crashes, nothing is reported.
 */
#include <stdlib.h>
#include <string.h>

typedef struct list {
    void *items[4];
    int n;
} list_t;

typedef struct allocator {
    void *(*malloc)(size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
} allocator_t;

static void list_destroy(list_t *l, void (*destroy)(void *))
{
    int i;
    for (i = 0; i < l->n; i++)
        destroy(l->items[i]);
    l->n = 0;
}

int main(void)
{
    list_t l = {{0}, 0};
    allocator_t hooks = {malloc, realloc, free};
    int free = 3; /* a variable named free */
    memtrack_stats_t st;

    l.items[l.n++] = malloc(16);
    l.items[l.n++] = strdup("tracked");
    list_destroy(&l, hooks.free); /* tracked blocks released through the real free */

    void *a = (hooks.malloc)(32);     /* a member called through parentheses */
    a = (hooks.realloc)(a, 64);
    (hooks.free)(a);

    char *t = malloc(8);               /* tracked, grown and freed through the hooks */
    t = (hooks.realloc)(t, 200);
    memset(t, 1, 200);
    (hooks.free)(t);

    memtrack_stats(&st);
    return st.current_blocks == 0 && st.errors == 0 && free == 3 ? 0 : 1;
}
