/* owned_pair.c - a tracked pool's release+allocate pair, or a tracked arena's allocation,
 * in a loop: what tools/bench/instructions.sh counts for pools and arenas (as churn.c for
 * malloc'd blocks).
 *
 *   owned_pair [--arena] --ops N
 *
 * Pool: 1000 objects of 24 bytes live in a pool of 2000; each step releases one (the
 * oldest) and allocates one. Arena: each step allocates 16 to 256 bytes from a 1 MiB arena,
 * reset when full (the reset's cost is part of the figure, spread over its allocations).
 * Both through the drop-in macros, from one line each, as an engine's Allocate would.
 */
#define MEMORY_CONTROL_ON
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrack.h"

#include "collect.h"

#define LIVE 1000

static void pool_steps(size_t ops)
{
    static void *live[LIVE];
    memtrack_pool_t *pool = memtrack_pool_create("bench", 24, 2 * LIVE);
    for (size_t k = 0; k < LIVE; k++)
        live[k] = memtrack_pool_alloc(pool);
    TOGGLE_COLLECT();
    for (size_t k = 0; k < ops; k++) {
        memtrack_pool_free(pool, live[k % LIVE]);
        live[k % LIVE] = memtrack_pool_alloc(pool);
    }
    TOGGLE_COLLECT();
    memtrack_pool_clear(pool);
    memtrack_pool_destroy(pool);
}

static void arena_steps(size_t ops)
{
    memtrack_arena_t *arena = memtrack_arena_create("bench", 1 << 20);
    size_t used = 0;
    unsigned seed = 1;
    TOGGLE_COLLECT();
    for (size_t k = 0; k < ops; k++) {
        seed = seed * 1103515245u + 12345u;
        size_t size = 16 + (seed >> 16) % 241;
        if (used + size + 64 > (1 << 20)) { /* room for the guards and the alignment */
            memtrack_arena_reset(arena);
            used = 0;
        }
        char *p = memtrack_arena_alloc(arena, size);
        if (p == NULL) {
            fprintf(stderr, "owned_pair: arena full at %zu\n", used);
            exit(1);
        }
        p[0] = 1;
        used += size + 32 + 16;
    }
    TOGGLE_COLLECT();
    memtrack_arena_destroy(arena);
}

int main(int argc, char **argv)
{
    size_t ops = 100000;
    int arena = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--arena") == 0)
            arena = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--ops") == 0)
            ops = strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: owned_pair [--arena] [--ops N]\n");
            return 2;
        }
    }
    if (arena)
        arena_steps(ops);
    else
        pool_steps(ops);
    return 0;
}
