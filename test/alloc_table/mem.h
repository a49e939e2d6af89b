/* mem.h - the library's allocator: a table of the C library's names, which a program may
 * replace with its own (as cmark's cmark_mem, or a game engine's allocator interface). */
#ifndef MEM_H
#define MEM_H
#include <stddef.h>

typedef struct mem {
    void *(*calloc)(size_t count, size_t size);
    void *(*realloc)(void *ptr, size_t size);
    void (*free)(void *ptr);
} mem_t;

extern mem_t default_mem;

/* Calls through the table from a macro: the units that use these show no member call. */
#define MEM_NEW(m, type) ((type *)(m)->calloc(1, sizeof(type)))
#define MEM_RELEASE(m, p) ((m)->free(p))

#endif
