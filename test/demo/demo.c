/* demo.c - a small "game" with real bugs, to show memtrack's report.
 *
 * Built by `make demo` with -DMEMORY_CONTROL_ON. It loads a level, spawns enemies each
 * frame and forgets some of them, copies a name one byte too long, and keeps a debug
 * string it never frees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrack.h"

typedef struct enemy {
    float x, y;
    int health;
} enemy_t;

static char *load_level(const char *name)
{
    char *tiles = malloc(4096);
    if (tiles == NULL)
        return NULL;
    memset(tiles, '.', 4096);
    printf("loaded level %s\n", name);
    return tiles;
}

static enemy_t *spawn(int frame)
{
    enemy_t *e = calloc(1, sizeof *e);
    if (e != NULL)
        e->health = 100 - frame;
    return e;
}

int main(void)
{
    char *level = load_level("e1m1");
    enemy_t *alive[8];
    int frame;

    for (frame = 0; frame < 8; frame++)
        alive[frame] = spawn(frame);
    for (frame = 0; frame < 8; frame += 2) /* every other enemy is despawned... */
        free(alive[frame]);                 /* ...the odd ones are forgotten */

    char *name = malloc(5);
    strcpy(name, "Quake"); /* 6 bytes with the terminator: one past the end */
    printf("player %s\n", name);
    free(name);

    char *debug = strdup("frame timings: 16.6 ms");
    printf("%s\n", debug);

    free(level);
    return 0;
}
