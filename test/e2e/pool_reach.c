/* Pool objects and arena allocations are classified as malloc'd blocks are. An enemy the
 * level forgot sits in the pool's chunk, which the pool still holds, but nothing points at
 * the enemy itself: lost. Those the game still holds are still reachable, by its list, the
 * second one through the first; the same for the arena's allocations. At a checkpoint's
 * report (memtrack_report_since) as at exit, where the pool and the arena, never
 * destroyed, leave their objects live.
 */
#include <stdlib.h>
#include <string.h>

typedef struct enemy {
    struct enemy *next;
    int hp;
} enemy_t;

static memtrack_pool_t *enemies;
static memtrack_arena_t *level;
static enemy_t *g_alive; /* the game's list of live enemies */
static char *g_level_name;

static void spawn(void)
{
    enemy_t *first = memtrack_pool_alloc(enemies);
    enemy_t *second = memtrack_pool_alloc(enemies);
    enemy_t *forgotten = memtrack_pool_alloc(enemies);
    second->next = NULL;
    first->next = second;
    g_alive = first;
    forgotten->next = NULL;
}

static void load(void)
{
    g_level_name = memtrack_arena_alloc(level, 32);
    strcpy(g_level_name, "e1m1");
    memset(memtrack_arena_alloc(level, 64), 0, 64); /* nothing keeps it */
}

int main(void)
{
    enemies = memtrack_pool_create("enemies", sizeof(enemy_t), 16);
    level = memtrack_arena_create("level", 4096);
    unsigned long mark = memtrack_checkpoint();
    spawn();
    load();
    memtrack_report_since(mark);
    return 0;
}
