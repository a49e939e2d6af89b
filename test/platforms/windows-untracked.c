/* windows-untracked.c - a library built WITHOUT memtrack: its aligned blocks come from the
 * CRT's own _aligned_malloc. */
#include <malloc.h>

void *lib_aligned_malloc(size_t n, size_t alignment);

void *lib_aligned_malloc(size_t n, size_t alignment) { return _aligned_malloc(n, alignment); }
