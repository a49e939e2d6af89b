/* inline_named.c - a wrapper the compiler inlined into each of its callers, named by option
 * alloc_fn: each leak is shown at the line of its caller that called the wrapper, not at the
 * wrapper's line nor one caller further. */
#include <stdio.h>
#include <stdlib.h>

static inline void *xalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
}

struct game {
    void *level, *player, *sound;
};

__attribute__((noinline)) static void load_level(struct game *g)
{
    g->level = xalloc(100);
}

__attribute__((noinline)) static void spawn_player(struct game *g)
{
    g->player = xalloc(40);
}

__attribute__((noinline)) static void start_sound(struct game *g)
{
    g->sound = xalloc(20);
}

int main(void)
{
    static struct game g;
    load_level(&g);
    spawn_player(&g);
    start_sound(&g);
    printf("started\n");
    g.level = g.player = g.sound = NULL;
    return 0;
}
