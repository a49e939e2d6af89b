/* blocks.h - an engine's small-object allocator, in the manner of a physics engine's block
 * allocator: size classes, each a pool, whose objects the game makes and releases through
 * blocks_allocate() and blocks_free() and never sees the pools. */
#ifndef BLOCKS_H
#define BLOCKS_H
#include <stddef.h>

typedef struct blocks blocks_t;
blocks_t *blocks_create(void);
void *blocks_allocate(blocks_t *b, size_t size); /* NULL past the largest class */
void blocks_free(blocks_t *b, void *p, size_t size);
void blocks_mark(blocks_t *b);    /* a level's end: what it made and left is reported */
void blocks_destroy(blocks_t *b); /* objects still in it go with it, by design */
#endif
