/* blocks.c - the engine's block allocator: four size classes (16 to 128 bytes), a pool
 * each, growing by chunks, all released at once when the world goes. Each object is made
 * at the size asked for, so the rest of its class's slot is checked too. The game never
 * calls memtrack: the pools are the engine's. */
#include <stdlib.h>

#include "blocks.h"

#define CLASSES 4
static const size_t class_size[CLASSES] = {16, 32, 64, 128};
/* the class of a size, by its 16-byte step */
static const unsigned char class_of_step[128 / 16 + 1] = {0, 0, 1, 2, 2, 3, 3, 3, 3};

struct blocks {
    memtrack_pool_t *pools[CLASSES];
};

blocks_t *blocks_create(void)
{
    blocks_t *b = malloc(sizeof *b);
    if (b == NULL)
        return NULL;
    for (int i = 0; i < CLASSES; i++) {
        b->pools[i] = memtrack_pool_create("blocks", class_size[i], 16);
        memtrack_pool_set_growth(b->pools[i], 16, 0);
        memtrack_pool_set_wholesale(b->pools[i], 1);
    }
    return b;
}

void *blocks_allocate(blocks_t *b, size_t size)
{
    if (size > 128)
        return NULL;
    return memtrack_pool_alloc_size(b->pools[class_of_step[(size + 15) / 16]], size);
}

void blocks_free(blocks_t *b, void *p, size_t size)
{
    memtrack_pool_free(b->pools[class_of_step[(size + 15) / 16]], p);
}

void blocks_mark(blocks_t *b)
{
    for (int i = 0; i < CLASSES; i++)
        memtrack_pool_mark(b->pools[i]);
}

void blocks_destroy(blocks_t *b)
{
    for (int i = 0; i < CLASSES; i++)
        memtrack_pool_destroy(b->pools[i]);
    free(b);
}
