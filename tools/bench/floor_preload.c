/* floor_preload.c - the floor (floor.c) as the process's allocator, for the real-library
 * benchmark (tools/bench/libs.c): preloaded into the plain build of a host, every malloc,
 * calloc, realloc and free of the process, the libraries' included, goes through the
 * floor's table and guards, as under memtrack's track_all. The site is the caller's return
 * address (the floor keeps it and takes no stack). realloc moves the block, as memtrack's
 * default does. Aligned allocations are glibc's, untracked (the workloads make none but
 * the C library's own); free hands a pointer the floor never made to glibc.
 *
 * Built with floor.c -DFLOOR_PRELOAD (and -DFLOOR_FULL for floor+) into a shared library.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <string.h>

#define FLOOR_NO_MACROS
#include "floor.h"

extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern size_t __malloc_usable_size(void *ptr) __attribute__((weak));

#define EXPORT __attribute__((visibility("default")))
#define SITE ((const char *)__builtin_return_address(0))

EXPORT void *malloc(size_t size)
{
    void *p = floor_malloc(size, SITE, 0);
    if (p == NULL)
        errno = ENOMEM;
    return p;
}

EXPORT void *calloc(size_t count, size_t size)
{
    void *p = floor_calloc(count, size, SITE, 0);
    if (p == NULL)
        errno = ENOMEM;
    return p;
}

EXPORT void free(void *ptr)
{
    floor_free(ptr);
}

EXPORT void *realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return malloc(size);
    size_t old = floor_size(ptr);
    if (old == SIZE_MAX) /* glibc's own block */
        return __libc_realloc(ptr, size);
    if (size == 0) {
        floor_free(ptr);
        return NULL;
    }
    void *p = floor_malloc(size, SITE, 0);
    if (p == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(p, ptr, old < size ? old : size);
    floor_free(ptr);
    return p;
}

EXPORT void *memalign(size_t alignment, size_t size)
{
    return __libc_memalign(alignment, size);
}

EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
    return __libc_memalign(alignment, size);
}

EXPORT int posix_memalign(void **out, size_t alignment, size_t size)
{
    void *p = __libc_memalign(alignment, size);
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT size_t malloc_usable_size(void *ptr)
{
    if (ptr == NULL)
        return 0;
    size_t size = floor_size(ptr);
    return size != SIZE_MAX ? size : __malloc_usable_size(ptr);
}
