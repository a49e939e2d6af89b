/* memory.h - the tracker's own memory, in mappings of its own (never the C library's heap,
 * where the program's overruns and stray frees could reach it). malloc's interface.
 */
#ifndef MT_MEMORY_H
#define MT_MEMORY_H

#include <stddef.h>

void *mt_mem_alloc(size_t size);
void mt_mem_free(void *ptr);
void *mt_mem_calloc(size_t count, size_t size);
void mt_mem_lock_all(void);
void mt_mem_unlock_all(void);

#endif /* MT_MEMORY_H */
