/* One line of an engine's Allocate serves several pools, and its callers make objects in
 * each from one line too: every call has the same place and stack, so only the pool tells
 * the objects' sites apart. Each pool's leaks are reported under its own name, and
 * registered blocks of two owners the same (a site kept for the next call from a stack,
 * api/owned.h, is a pool's and an owner's). Arena allocations alternate with them.
 * e2e-options: track_all=0
 */
#include <stdlib.h>

static void *allocate(memtrack_pool_t *pool)
{
    return memtrack_pool_alloc(pool);
}

static void note_block(void *p, const char *owner)
{
    memtrack_register_alloc(p, 16, owner);
}

int main(void)
{
    memtrack_pool_t *bullets = memtrack_pool_create("bullets", 16, 8);
    memtrack_pool_t *sparks = memtrack_pool_create("sparks", 16, 8);
    memtrack_arena_t *frame = memtrack_arena_create("frame", 4096);
    static char carved[6][16];
    for (int i = 0; i < 6; i++) {
        memtrack_pool_t *pool = i % 3 == 0 ? sparks : bullets;
        (void)allocate(pool);
        note_block(carved[i], i % 2 ? "cards" : "tiles");
        (void)memtrack_arena_alloc(frame, 8);
    }
    memtrack_arena_reset(frame);
    memtrack_arena_destroy(frame);
    return 0;
}
