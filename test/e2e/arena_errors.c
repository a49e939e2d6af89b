/* Misuses of a tracked arena, each reported with its sites, and the program goes on:
 * overruns between allocations (found by reset, rewind, memtrack_check(), exit), writes
 * through pointers kept across a reset or rewind (found by the next allocation, at
 * destroy, at exit), rewinds to a bad mark, free() of an arena allocation; an arena never
 * destroyed leaks its live allocations, by site. A full arena returns NULL, at the same
 * point tracked or not.
 * e2e-stdout
 * track_all=0, stack=0: the pools and arenas alone, at their own lines, the same on every target.
 * e2e-options: track_all=0:stack=0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *load(memtrack_arena_t *arena, const char *text)
{
    char *copy = memtrack_arena_alloc(arena, strlen(text) + 1);
    strcpy(copy, text);
    return copy;
}

int main(void)
{
    memtrack_arena_t *level = memtrack_arena_create("level", 256);
    char *a = load(level, "first");
    char *b = memtrack_arena_alloc(level, 16);
    memset(b, 'b', 17); /* into the guard before the next allocation */
    memtrack_arena_reset(level);
    a[0] = 'F'; /* kept across the reset */
    char *c = load(level, "again");
    printf("a %s, c %s\n", a == c ? "reused" : "moved", c);

    size_t mark = memtrack_arena_mark(level);
    char *d = memtrack_arena_alloc(level, 32);
    d[-1] = 0; /* before its start */
    memtrack_arena_rewind(level, mark);
    memtrack_arena_rewind(level, mark + 1000); /* past what is in use */
    char *e = memtrack_arena_alloc(level, 40);
    memtrack_arena_rewind(level, mark + 18); /* inside e: rewinds to its end instead */
    e[40] = 1;
    int found = memtrack_check();
    free(e);
    if (memtrack_arena_alloc(level, 1000) != NULL) /* 256 bytes: full */
        return 1;
    printf("used %zu of %zu\n", memtrack_arena_used(level), memtrack_arena_capacity(level));
    memtrack_arena_reset(level);
    free(e); /* a stale pointer into the arena's memory: left alone */
    e[1] = 'e'; /* found at destroy */
    memtrack_arena_destroy(level);

    memtrack_arena_t *hud = memtrack_arena_create("hud", 1024);
    char *title = load(hud, "never destroyed");
    load(hud, "these leak");
    title[strlen(title) + 1] = '!'; /* past the end and the padding: found at exit */
    mark = memtrack_arena_mark(hud);
    char *scratch = memtrack_arena_alloc(hud, 64);
    memtrack_arena_rewind(hud, mark);
    scratch[10] = 's'; /* found at exit */
    printf("found %d\n", found);
    return 0;
}
