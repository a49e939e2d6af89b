/* engine.h - the engine's allocators, as a game's code sees them: bullets come from a pool,
 * a level's data from an arena reset in one step when the level ends. The macros pass the
 * game's own line down, so memtrack's report names the game code, not the allocator. */
#include <stddef.h>

typedef struct bullet {
    float x, y, dx, dy;
} bullet_t;

void engine_start(void);
void engine_stop(void);
bullet_t *bullet_spawn_at(const char *file, int line, const char *func);
void bullet_despawn_at(bullet_t *b, const char *file, int line, const char *func);
void *level_alloc_at(size_t size, const char *file, int line, const char *func);
void level_end(void);

#define bullet_spawn() bullet_spawn_at(__FILE__, __LINE__, __func__)
#define bullet_despawn(b) bullet_despawn_at((b), __FILE__, __LINE__, __func__)
#define level_alloc(size) level_alloc_at((size), __FILE__, __LINE__, __func__)
