/* uses_pools.c - every pool, arena and register call, compiled under the strict flags of
 * header_strict.sh by test/e2e/pool_header.sh (C89 to C11, C++98 to C++20, tracking on
 * and off, included first, last or force-included); it also runs, tracked and not. */
#ifdef INCLUDE_FIRST
#include "memtrack.h"
#endif
#include <stdio.h>
#include <string.h>
#ifdef INCLUDE_LAST
#include "memtrack.h"
#endif

struct particle {
    float x, y;
    int ttl;
};

static void age(void *object, void *ctx)
{
    struct particle *p = (struct particle *)object;
    p->ttl--;
    ++*(int *)ctx;
}

int main(void)
{
    memtrack_pool_t *pool = memtrack_pool_create("particles", sizeof(struct particle), 8);
    memtrack_pool_t *wide = memtrack_pool_create_aligned("wide", 48, 64, 2);
    memtrack_arena_t *arena = memtrack_arena_create("level", 1024);
    struct particle *p;
    char *text, *mine;
    size_t mark;
    int visited = 0, problems;

    memtrack_pool_set_growth(pool, 8, 64);
    p = (struct particle *)memtrack_pool_alloc(pool);
    p->ttl = 3;
    memtrack_pool_foreach(pool, age, &visited);
    text = (char *)memtrack_arena_alloc(arena, 6);
    strcpy(text, "level");
    mark = memtrack_arena_mark(arena);
    mine = (char *)memtrack_arena_alloc_aligned(arena, 32, 32);
    memtrack_register_alloc(mine + 16, 8, "mine");
    memtrack_register_free(mine + 16, "mine");
    memtrack_arena_rewind(arena, mark);
    problems = memtrack_pool_check(pool);
    memtrack_pool_free(wide, memtrack_pool_alloc(wide));
    memtrack_pool_free(pool, p);
    printf("%d %d %lu %lu %lu %d %lu %lu\n", visited, problems,
           (unsigned long)memtrack_pool_live(pool), (unsigned long)memtrack_pool_capacity(pool),
           (unsigned long)memtrack_pool_object_size(pool), memtrack_pool_owns(pool, p),
           (unsigned long)memtrack_arena_used(arena),
           (unsigned long)memtrack_arena_capacity(arena));
    memtrack_pool_clear(pool);
    memtrack_arena_reset(arena);
    memtrack_arena_destroy(arena);
    memtrack_pool_destroy(wide);
    memtrack_pool_destroy(pool);
    return 0;
}
