/* A program's own allocator (a script engine's bump allocator over one malloc'd buffer)
 * registers what it hands out and takes back: its blocks are in the report like malloc'd
 * ones, under its name, with their sites, and in the statistics. Misuses are reported and
 * change nothing: releasing an unknown block or twice, under another owner's name,
 * registering twice at one address, free() of a registered block.
 * e2e-stdout
 * track_all=0, stack=0: the pools and arenas alone, at their own lines, the same on every target.
 * e2e-options: track_all=0:stack=0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct script_heap {
    char *buffer;
    size_t used, size;
} script_heap_t;

/* The _at form passes the caller's site on, as a malloc wrapper would. */
static void *script_alloc_at(script_heap_t *h, size_t size, const char *file, int line,
                             const char *func)
{
    size = (size + 15) & ~(size_t)15;
    if (size > h->size - h->used)
        return NULL;
    void *p = h->buffer + h->used;
    h->used += size;
    memtrack_register_alloc_at(p, size, "scripts", file, line, func);
    return p;
}
#define script_alloc(h, size) script_alloc_at((h), (size), __FILE__, __LINE__, __func__)

static void script_free(script_heap_t *h, void *p)
{
    (void)h; /* a bump allocator reuses nothing; the tracker still wants to know */
    memtrack_register_free(p, "scripts");
}

int main(void)
{
    script_heap_t heap = {malloc(4096), 64, 4096}; /* the first 64 bytes: its header */
    char *name = script_alloc(&heap, 20);
    strcpy(name, "player");
    int *vars = script_alloc(&heap, 10 * sizeof(int));
    char *temp = script_alloc(&heap, 100);
    char *kept = script_alloc(&heap, 33);

    memtrack_stats_t st;
    memtrack_stats(&st);
    printf("live: %zu blocks, %zu bytes\n", st.current_blocks, st.current_bytes);

    script_free(&heap, temp);
    script_free(&heap, temp);                        /* twice */
    memtrack_register_free(vars, "physics");         /* another owner's block */
    memtrack_register_free(heap.buffer + 8, "scripts"); /* never registered */
    memtrack_register_alloc(kept, 8, "scripts");     /* registered already */
    free(kept);                                      /* not malloc's */
    script_free(&heap, vars);
    memtrack_register_alloc(NULL, 10, "scripts");    /* ignored, as free(NULL) */

    memtrack_stats(&st);
    printf("live: %zu blocks, %zu bytes\n", st.current_blocks, st.current_bytes);
    free(heap.buffer); /* name and kept were never released to the script heap: leaks */
    return 0;
}
