/* override.c - the process's malloc, free... for code built without the header.
 *
 * Two doors lead in. Code built with MEMORY_CONTROL_ON calls memtrack_malloc_at() and
 * friends with its file and line: those blocks are tracked (alloc.c, free.c). Everything
 * else (the C library, other libraries, files built without the flag) calls malloc,
 * free... which libmemtrack provides for the process, as glibc allows: new blocks go to
 * the C library untouched, and every pointer released is looked up, so a tracked block
 * freed or realloc'd by a library is handled as tracked, and a library's block freed by
 * tracked code goes back to the C library.
 *
 * With option track_all (memtrack run --preload), that second door tracks too: blocks made
 * through malloc, calloc... are sited by the caller's return address (mt_site_pc), and the
 * report counts apart those made inside system libraries (records/place.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"

extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

/* ---- the process's allocator, for code built without the header ------------------------ */

#ifndef MT_SANITIZER_ALLOCATOR /* a sanitizer provides these itself */

#define CALLER_SITE(kind) mt_site_pc(__builtin_return_address(0), MT_KIND_##kind)

/* Option track_all: blocks made by code built without memtrack are tracked too. Never
 * inside the tracker itself (the loader's and the C library's calls it makes). */
static inline bool tracking_all(void)
{
    return MT_UNLIKELY(mt_opt.track_all) && !mt_busy;
}

MT_EXPORT void *malloc(size_t size)
{
    if (tracking_all())
        return mt_alloc(size, 0, CALLER_SITE(MALLOC), false);
    return mt_libc_malloc(size);
}

MT_EXPORT void *calloc(size_t count, size_t size)
{
    if (tracking_all()) {
        size_t total;
        if (mt_mul_overflows(count, size, &total))
            return mt_fail(ENOMEM);
        return mt_alloc(total, 0, CALLER_SITE(CALLOC), true);
    }
    return mt_libc_calloc(count, size);
}

/* The C library's strdup calls malloc from inside itself, which would site the copy in
 * the C library: ours sites it at the caller. Without track_all it is the plain copy. */
MT_EXPORT char *strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = tracking_all() ? mt_alloc(n, 0, CALLER_SITE(STRDUP), false) : mt_libc_malloc(n);
    if (copy != NULL)
        memcpy(copy, s, n);
    return copy;
}

MT_EXPORT char *strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *copy = tracking_all() ? mt_alloc(len + 1, 0, CALLER_SITE(STRNDUP), false)
                                : mt_libc_malloc(len + 1);
    if (copy != NULL) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

/* Untracked callers get the table lookups only: a tracked block is released as tracked,
 * a block in quarantine is a double free, anything else is the C library's. */
MT_EXPORT void free(void *ptr)
{
    if (ptr == NULL)
        return;
    if (MT_UNLIKELY(mt_busy)) {
        (void)mt_free_nested(ptr);
        return;
    }
    void *pc = __builtin_return_address(0);
    mt_free_site_t where = {MT_SITE_NONE, pc, MT_KIND_FREE};
    if (MT_LIKELY(mt_release(ptr, &where, 0) != MT_FOUND_NONE))
        return;
    if (tracking_all()) /* the whole program is checked: its bad frees are found too */
        mt_release_foreign(ptr, mt_site_pc(pc, MT_KIND_FREE));
    else
        mt_libc_free(ptr);
}

static void *realloc_untracked_caller(void *ptr, size_t size, void *pc, mt_kind_t kind)
{
    mt_block_t b;
    if (ptr == NULL || MT_UNLIKELY(mt_busy))
        return mt_libc_realloc(ptr, size);
    switch (mt_peek_block(ptr, &b)) {
    case MT_FOUND_LIVE:
    case MT_FOUND_OWNED: return mt_realloc_live(ptr, &b, size, mt_site_pc(pc, kind), false);
    case MT_FOUND_FREED: return mt_realloc_freed(&b, mt_site_pc(pc, kind));
    case MT_FOUND_NONE: break;
    }
    if (tracking_all())
        return mt_realloc_foreign(ptr, size, mt_site_pc(pc, kind));
    return mt_libc_realloc(ptr, size);
}

MT_EXPORT void *realloc(void *ptr, size_t size)
{
    if (ptr == NULL && tracking_all())
        return mt_alloc(size, 0, CALLER_SITE(REALLOC), false);
    return realloc_untracked_caller(ptr, size, __builtin_return_address(0), MT_KIND_REALLOC);
}

MT_EXPORT void *reallocarray(void *ptr, size_t count, size_t size)
{
    size_t total;
    if (mt_mul_overflows(count, size, &total))
        return mt_fail(ENOMEM);
    if (ptr == NULL && tracking_all())
        return mt_alloc(total, 0, CALLER_SITE(REALLOCARRAY), false);
    return realloc_untracked_caller(ptr, total, __builtin_return_address(0), MT_KIND_REALLOCARRAY);
}

MT_EXPORT void *memalign(size_t alignment, size_t size)
{
    if (tracking_all())
        return mt_alloc(size, mt_round_alignment(alignment), CALLER_SITE(MEMALIGN), false);
    return mt_libc_memalign(alignment, size);
}

MT_EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
    if (!mt_power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    if (tracking_all())
        return mt_alloc(size, alignment, CALLER_SITE(ALIGNED_ALLOC), false);
    return mt_libc_memalign(alignment, size);
}

MT_EXPORT int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (!mt_power_of_two(alignment) || alignment % sizeof(void *) != 0)
        return EINVAL;
    int saved = errno;
    void *p = tracking_all() ? mt_alloc(size, alignment, CALLER_SITE(POSIX_MEMALIGN), false)
                             : mt_libc_memalign(alignment, size);
    errno = saved;
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

MT_EXPORT void *valloc(size_t size)
{
    if (tracking_all())
        return mt_alloc(size, (size_t)sysconf(_SC_PAGESIZE), CALLER_SITE(VALLOC), false);
    return __libc_valloc(size);
}

MT_EXPORT void *pvalloc(size_t size)
{
    if (tracking_all()) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t rounded = size == 0 ? page : (size + page - 1) & ~(page - 1);
        if (rounded < size)
            return mt_fail(ENOMEM);
        return mt_alloc(rounded, page, CALLER_SITE(VALLOC), false);
    }
    return __libc_pvalloc(size);
}

MT_EXPORT size_t malloc_usable_size(void *ptr)
{
    mt_block_t b;
    if (ptr == NULL)
        return 0;
    if (!mt_busy) {
        switch (mt_peek_block(ptr, &b)) {
        case MT_FOUND_LIVE:
        case MT_FOUND_OWNED: return b.size; /* the guard starts right after the requested bytes */
        case MT_FOUND_FREED: return 0;      /* freed: its header is our guard, not glibc's */
        case MT_FOUND_NONE: break;
        }
    }
    return mt_libc_usable_size(ptr);
}

#endif /* MT_SANITIZER_ALLOCATOR */
