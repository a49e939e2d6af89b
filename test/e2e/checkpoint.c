/* Checkpoints: a level loaded and unloaded three times; the second unload forgets its
 * enemies. memtrack_report_since(mark) prints the blocks made after the mark and still
 * live (nothing when there are none) and returns how many; blocks made before the mark
 * (the config) are not listed. The exit report still has the forgotten enemies.
 * e2e-stdout
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct level {
    char *tiles;
    void *enemies[3];
} level_t;

static level_t *load(void)
{
    level_t *l = calloc(1, sizeof *l);
    l->tiles = malloc(64);
    for (int i = 0; i < 3; i++)
        l->enemies[i] = malloc(12);
    return l;
}

static void unload(level_t *l, int forget_enemies)
{
    if (!forget_enemies)
        for (int i = 0; i < 3; i++)
            free(l->enemies[i]);
    free(l->tiles);
    free(l);
}

int main(void)
{
    char *config = malloc(100); /* lives the whole run */
    for (int round = 1; round <= 3; round++) {
        unsigned long mark = memtrack_checkpoint();
        level_t *l = load();
        unload(l, round == 2);
        size_t live = memtrack_report_since(mark);
        printf("round %d: %zu blocks live since mark %lu\n", round, live, mark);
    }
    unsigned long mark = memtrack_checkpoint();
    char *grown = realloc(config, 200); /* moved after the mark: made after it */
    printf("after realloc: %zu\n", memtrack_report_since(mark));
    free(grown);
    return 0;
}
