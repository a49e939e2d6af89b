/* engine.h - the engine's allocators, as a game's code sees them: bullets come from a pool,
 * a level's data from an arena reset in one step when the level ends. Plain functions:
 * memtrack sees through them (small, they only allocate or release), so its report names
 * the game's line that called them, with its stack, not the allocator's. */
#include <stddef.h>

typedef struct bullet {
    float x, y, dx, dy;
} bullet_t;

void engine_start(void);
void engine_stop(void);
bullet_t *bullet_spawn(void);
void bullet_despawn(bullet_t *b);
void *level_alloc(size_t size);
void level_end(void);
