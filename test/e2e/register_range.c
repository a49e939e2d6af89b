/* A program's own allocator carves blocks out of malloc'd chunks and registers each; when
 * a chunk is given back whole, memtrack_register_free_range() releases every block it
 * registered there at once (no call per block): they are not leaks. The chunk still in
 * use at exit leaks, and so do its blocks, with the line that asked for them below carve().
 * e2e-options: track_all=0
 * e2e-stdout
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct chunk {
    struct chunk *next;
    size_t used;
    unsigned char bytes[1008]; /* 21 blocks of 48 */
} chunk_t;

static chunk_t *chunks;

static void *carve(size_t size)
{
    size_t step = (size + 15) & ~(size_t)15;
    if (chunks == NULL || chunks->used + step > sizeof chunks->bytes) {
        chunk_t *c = malloc(sizeof *c);
        if (c == NULL)
            return NULL;
        c->next = chunks;
        c->used = 0;
        chunks = c;
    }
    void *p = chunks->bytes + chunks->used;
    chunks->used += step;
    memtrack_register_alloc(p, size, "carver");
    return p;
}

static void give_back(chunk_t *c)
{
    size_t n = memtrack_register_free_range(c->bytes, sizeof c->bytes, "carver");
    printf("released %zu blocks at once\n", n);
    free(c);
}

int main(void)
{
    for (int i = 0; i < 25; i++) /* a full chunk and 4 blocks of another */
        carve(40);
    give_back(chunks->next); /* the full one */
    chunks->next = NULL;
    printf("released %zu blocks\n", memtrack_register_free_range(chunks, 8, "carver"));
    return 0; /* the second chunk and its 4 blocks: leaks */
}
