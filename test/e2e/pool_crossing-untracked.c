/* A library built without memtrack: its own pool is untracked; it also uses the program's
 * tracked pool with plain calls, and frees a pointer it was given. */
#include <stdlib.h>

#include "../../include/memtrack.h" /* run.sh builds libraries without -I */

memtrack_pool_t *lib_make_pool(void)
{
    return memtrack_pool_create("lib particles", 24, 8);
}

void *lib_spawn(memtrack_pool_t *pool)
{
    return memtrack_pool_alloc(pool);
}

void lib_despawn(memtrack_pool_t *pool, void *object)
{
    memtrack_pool_free(pool, object);
}

void lib_free(void *p)
{
    free(p);
}
