/* A program's own allocator carves blocks out of malloc'd chunks and registers each, the
 * first at the chunk's own address (where every chunk's first block sits). free(chunk)
 * finds the chunk and memtrack_register_free() the block: neither is taken for the other.
 * Released, range-released and leaked, each block is named at its own line; the chunk
 * freed with its first block still registered leaves that block a leak at its line.
 * e2e-options: track_all=0
 * e2e-stdout
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned char *kept; /* a chunk and its first block, live at exit */

int main(void)
{
    unsigned char *a = malloc(256);
    memtrack_register_alloc(a, 32, "carver"); /* at the chunk's start */
    memtrack_register_alloc(a + 32, 32, "carver");
    memtrack_register_free(a, "carver"); /* the block, not the chunk */
    memtrack_register_free(a + 32, "carver");
    free(a); /* the chunk, not a registered block */

    unsigned char *b = malloc(256);
    for (int i = 0; i < 4; i++)
        memtrack_register_alloc(b + 64 * i, 64, "carver");
    printf("released %zu blocks at once\n", memtrack_register_free_range(b, 256, "carver"));
    free(b);

    unsigned char *c = malloc(128);
    memtrack_register_alloc(c, 16, "carver"); /* never released: the chunk goes first */
    free(c);
    free(c); /* a double free of the chunk, not a free of the block */

    kept = malloc(64);
    memtrack_register_alloc(kept, 24, "carver"); /* leaks, with its chunk */
    return 0;
}
