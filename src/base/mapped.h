/* mapped.h - the memory the program mapped for itself, writable and anonymous: roots of the
 * leak scan, as Valgrind's memcheck takes them (base/mapped.c).
 */
#ifndef MT_MAPPED_H
#define MT_MAPPED_H

#include "base/own_data.h"

/* Notes [addr, addr + len) mapped by the program (its mmap: api/stacks.c). Ranges larger
 * than MT_MAPPED_LEN_MAX are not noted (a runtime's reservation of address space). */
void mt_mapped_add(uintptr_t addr, size_t len);
/* Forgets what of [addr, addr + len) was noted (munmap, mremap's old range, a fixed mmap
 * over it). */
void mt_mapped_remove(uintptr_t addr, size_t len);
/* A noted range moved or resized by mremap: [old, old + old_len) is forgotten and, when it
 * was noted, [new, new + new_len) noted in its place. */
void mt_mapped_moved(uintptr_t old, size_t old_len, uintptr_t new_at, size_t new_len);
/* Copies up to max of the ranges noted into out; returns how many. */
size_t mt_mapped_spans(mt_span_t *out, size_t max);
/* Around fork, so a child never inherits the lock taken. */
void mt_mapped_lock(void);
void mt_mapped_unlock(void);

#define MT_MAPPED_LEN_MAX ((size_t)1 << 30)
#define MT_MAPPED_MAX 4096u

#endif /* MT_MAPPED_H */
