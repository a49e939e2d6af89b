/* A write after an arena's reset, caught at the access by the allocation's page guard:
 * page_guard_site= names the arena's allocation line (in level_alloc, which only
 * allocates), and the fault names the writing line, the game's line that made the
 * allocation and the reset. Each wave's boss is its own allocation, told once.
 * fault-options: page_guard_site=page_guard_arena.c:19
 */
#include <stdio.h>
#include <string.h>

typedef struct enemy {
    char name[12];
    int health;
} enemy_t;

static memtrack_arena_t *level;

static void *level_alloc(size_t size)
{
    return memtrack_arena_alloc(level, size);
}

static void level_end(void)
{
    memtrack_arena_reset(level);
}

int main(void)
{
    level = memtrack_arena_create("level", 1 << 16);
    for (int wave = 0; wave < 2; wave++) {
        enemy_t *boss = level_alloc(sizeof *boss);
        strcpy(boss->name, "cyberdemon");
        boss->health = 4000;
        printf("wave %d: %s\n", wave, boss->name);
        level_end();
        boss->health = 0; /* a write after the reset */
    }
    memtrack_arena_destroy(level);
    return 0;
}
