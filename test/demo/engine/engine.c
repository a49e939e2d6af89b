/* engine.c - the allocator side: one pool and one arena, tracked when this file is built
 * with -DMEMORY_CONTROL_ON (the README's pools-and-arenas example; make demo runs it). */
#include "engine.h"
#include <memtrack.h>

static memtrack_pool_t *bullets;
static memtrack_arena_t *level;

void engine_start(void)
{
    bullets = memtrack_pool_create("bullets", sizeof(bullet_t), 256);
    level = memtrack_arena_create("level", 1 << 20);
}

bullet_t *bullet_spawn(void)
{
    return memtrack_pool_alloc(bullets);
}

void bullet_despawn(bullet_t *b)
{
    memtrack_pool_free(bullets, b);
}

void *level_alloc(size_t size)
{
    return memtrack_arena_alloc(level, size);
}

void level_end(void)
{
    memtrack_arena_reset(level); /* every allocation of the level at once: not leaks */
}

void engine_stop(void)
{
    memtrack_arena_destroy(level);
    memtrack_pool_destroy(bullets); /* bullets still live are reported, by site */
}
