/* heap_sort.h - sorting inside the tracker, without allocating.
 *
 * The C library's qsort may allocate (glibc's does for large arrays), and the tracker sorts
 * where it must not: at exit, in the leak scan with every shard locked, in the symbolizer's
 * indexes. A heap sort needs no memory beyond the array and runs in n log n.
 */
#ifndef MT_HEAP_SORT_H
#define MT_HEAP_SORT_H

#include <stddef.h>

/* Sorts the n elements of size bytes at base in the order cmp gives (negative: a before b).
 * Not stable. */
void mt_heap_sort(void *base, size_t n, size_t size, int (*cmp)(const void *a, const void *b));

#endif /* MT_HEAP_SORT_H */
