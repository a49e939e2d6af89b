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
 * glibc allows it through its __libc_* entry points, musl 1.2.1 and later by letting the
 * program define these names (base/platform_musl.c: what is underneath there).
 *
 * With option track_all (memtrack run --preload), that second door tracks too: blocks made
 * through malloc, calloc... are sited by the caller's return address (mt_site_pc), and the
 * report counts apart those made inside system libraries (records/place.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "base/first_definition.h"
#include "base/output.h"
#include "checks/page_guard.h"
#include "records/stack.h"

/* ---- the process's allocator, for code built without the header ------------------------ */

#ifdef MT_PROCESS_MALLOC /* glibc, musl; elsewhere the C library or a sanitizer provides them */

#ifdef MT_GLIBC_MALLOC
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);
#define libc_valloc __libc_valloc
#else /* musl: no valloc underneath but the aligned blocks of base/platform_musl.c */
#define libc_valloc(size) mt_libc_memalign((size_t)sysconf(_SC_PAGESIZE), (size))
#endif

/* The caller's return address is the site, and the frames above it its stack. */
#define CALLER_SITE(kind) STACKED_SITE(MT_KIND_##kind)
#define STACKED_SITE(kind) mt_site_pc_stacked(pc, kind, NULL, mt_stack_here(frame, pc))
#define RETURN_ADDRESS __builtin_return_address(0), __builtin_frame_address(0)

/* Option track_all: blocks made by code built without memtrack are tracked too. Never
 * inside the tracker itself (the loader's and the C library's calls it makes). */
static inline bool tracking_all(void)
{
    return MT_UNLIKELY(mt_opt.track_all) && !mt_reentered();
}

/* Each function below serves two doors: the process's malloc... (tracked only under
 * track_all) and the memtrack_*_caller entry points that memtrack.h's MEMTRACK_CALLER_SITES
 * names instead of malloc... (always tracked). pc is the caller's return address, the site. */

static inline void *process_malloc(size_t size, void *pc, void *frame, bool track)
{
    if (track)
        return mt_alloc(size, 0, CALLER_SITE(MALLOC), false);
    return mt_libc_malloc(size);
}

static inline void *process_calloc(size_t count, size_t size, void *pc, void *frame, bool track)
{
    if (track) {
        size_t total;
        if (mt_mul_overflows(count, size, &total))
            return mt_fail(ENOMEM);
        return mt_alloc(total, 0, CALLER_SITE(CALLOC), true);
    }
    return mt_libc_calloc(count, size);
}

/* The C library's strdup calls malloc from inside itself, which would site the copy in
 * the C library: ours sites it at the caller. Untracked, it is the plain copy. */
static inline char *process_strndup(const char *s, size_t len, void *pc, void *frame, bool track,
                                    mt_kind_t kind)
{
    char *copy = track ? mt_alloc(len + 1, 0, STACKED_SITE(kind), false) : mt_libc_malloc(len + 1);
    if (copy != NULL) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

/* Untracked callers get the table lookups only: a tracked block is released as tracked,
 * a block in quarantine is a double free, anything else is the C library's. */
static inline void process_free(void *ptr, void *pc, void *frame, bool checked)
{
    if (ptr == NULL)
        return;
    if (MT_UNLIKELY(mt_reentered())) {
        (void)mt_free_nested(ptr);
        return;
    }
    /* (the site and its stack are taken only for a tracked block, or a bad pointer) */
    mt_free_site_t where = {MT_SITE_NONE, pc, frame, MT_KIND_FREE};
    if (MT_LIKELY(mt_release(ptr, &where, 0) != MT_FOUND_NONE))
        return;
    /* the whole program is checked: its bad frees are found too; a page-guarded block's
     * memory is never the C library's, nor (musl) a pointer the allocator never lent */
    if (checked || mt_page_guarded((uintptr_t)ptr) || !mt_libc_may_own(ptr))
        mt_release_foreign(ptr,
                           mt_site_pc_stacked(pc, MT_KIND_FREE, NULL, mt_stack_here(frame, pc)));
    else
        mt_libc_free(ptr);
}

/* A realloc of an existing pointer; stack: its call's, taken in the entry point while its
 * frame is there (the call that brought us here may have been a jump that reused it). */
static void *realloc_untracked_caller(void *ptr, size_t size, void *pc, uint32_t stack,
                                      mt_kind_t kind, bool track)
{
    mt_block_t b;
    switch (mt_peek_block(ptr, &b)) {
    case MT_FOUND_LIVE:
    case MT_FOUND_OWNED:
        return mt_realloc_live(ptr, &b, size, mt_site_pc_stacked(pc, kind, NULL, stack), false);
    case MT_FOUND_FREED: return mt_realloc_freed(&b, mt_site_pc_stacked(pc, kind, NULL, stack));
    case MT_FOUND_NONE:
    default:
        return track || mt_page_guarded((uintptr_t)ptr) || !mt_libc_may_own(ptr)
                   ? mt_realloc_foreign(ptr, size, mt_site_pc_stacked(pc, kind, NULL, stack))
                   : mt_libc_realloc(ptr, size);
    }
}

static inline void *process_realloc(void *ptr, size_t size, void *pc, void *frame, bool track)
{
    if (ptr == NULL && track)
        return mt_alloc(size, 0, CALLER_SITE(REALLOC), false);
    if (ptr == NULL || MT_UNLIKELY(mt_reentered()))
        return mt_libc_realloc(ptr, size);
    return realloc_untracked_caller(ptr, size, pc, mt_stack_here(frame, pc), MT_KIND_REALLOC,
                                    track);
}

static inline void *process_reallocarray(void *ptr, size_t count, size_t size, void *pc,
                                         void *frame, bool track)
{
    size_t total;
    if (mt_mul_overflows(count, size, &total))
        return mt_fail(ENOMEM);
    if (ptr == NULL && track)
        return mt_alloc(total, 0, CALLER_SITE(REALLOCARRAY), false);
    if (ptr == NULL || MT_UNLIKELY(mt_reentered()))
        return mt_libc_realloc(ptr, total);
    return realloc_untracked_caller(ptr, total, pc, mt_stack_here(frame, pc), MT_KIND_REALLOCARRAY,
                                    track);
}

static inline void *process_memalign(size_t alignment, size_t size, void *pc, void *frame,
                                     bool track)
{
    if (track)
        return mt_alloc(size, mt_round_alignment(alignment), CALLER_SITE(MEMALIGN), false);
    return mt_libc_memalign(alignment, size);
}

static inline void *process_aligned_alloc(size_t alignment, size_t size, void *pc, void *frame,
                                          bool track)
{
    if (!mt_power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    if (track)
        return mt_alloc(size, alignment, CALLER_SITE(ALIGNED_ALLOC), false);
    return mt_libc_memalign(alignment, size);
}

static inline int process_posix_memalign(void **out, size_t alignment, size_t size, void *pc,
                                         void *frame, bool track)
{
    if (!mt_power_of_two(alignment) || alignment % sizeof(void *) != 0)
        return EINVAL;
    int saved = errno;
    void *p = track ? mt_alloc(size, alignment, CALLER_SITE(POSIX_MEMALIGN), false)
                    : mt_libc_memalign(alignment, size);
    errno = saved;
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

static inline void *process_valloc(size_t size, void *pc, void *frame, bool track)
{
    if (track)
        return mt_alloc(size, (size_t)sysconf(_SC_PAGESIZE), CALLER_SITE(VALLOC), false);
    return libc_valloc(size);
}

/* ---- the process's door: tracked under track_all ---- */

MT_EXPORT void *malloc(size_t size)
{
    return process_malloc(size, RETURN_ADDRESS, tracking_all());
}

MT_EXPORT void *calloc(size_t count, size_t size)
{
    return process_calloc(count, size, RETURN_ADDRESS, tracking_all());
}

MT_EXPORT char *strdup(const char *s)
{
    return process_strndup(s, strlen(s), RETURN_ADDRESS, tracking_all(), MT_KIND_STRDUP);
}

MT_EXPORT char *strndup(const char *s, size_t n)
{
    return process_strndup(s, strnlen(s, n), RETURN_ADDRESS, tracking_all(), MT_KIND_STRNDUP);
}

MT_EXPORT void free(void *ptr)
{
    process_free(ptr, RETURN_ADDRESS, tracking_all());
}

MT_EXPORT void *realloc(void *ptr, size_t size)
{
    return process_realloc(ptr, size, RETURN_ADDRESS, tracking_all());
}

MT_EXPORT void *reallocarray(void *ptr, size_t count, size_t size)
{
    return process_reallocarray(ptr, count, size, RETURN_ADDRESS, tracking_all());
}

MT_EXPORT void *memalign(size_t alignment, size_t size)
{
    return process_memalign(alignment, size, RETURN_ADDRESS, tracking_all());
}

MT_EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
    return process_aligned_alloc(alignment, size, RETURN_ADDRESS, tracking_all());
}

MT_EXPORT int posix_memalign(void **out, size_t alignment, size_t size)
{
    return process_posix_memalign(out, alignment, size, RETURN_ADDRESS, tracking_all());
}

MT_EXPORT void *valloc(size_t size)
{
    return process_valloc(size, RETURN_ADDRESS, tracking_all());
}

#ifdef MT_GLIBC_MALLOC /* musl has no pvalloc */
MT_EXPORT void *pvalloc(size_t size)
{
    if (tracking_all()) {
        void *pc = __builtin_return_address(0), *frame = __builtin_frame_address(0);
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t rounded = size == 0 ? page : (size + page - 1) & ~(page - 1);
        if (rounded < size)
            return mt_fail(ENOMEM);
        return mt_alloc(rounded, page, CALLER_SITE(VALLOC), false);
    }
    return __libc_pvalloc(size);
}
#endif

/* ---- the caller-site door (MEMTRACK_CALLER_SITES): always tracked ---- */

MT_EXPORT void *memtrack_malloc_caller(size_t size)
{
    return process_malloc(size, RETURN_ADDRESS, !mt_reentered());
}

MT_EXPORT void *memtrack_calloc_caller(size_t count, size_t size)
{
    return process_calloc(count, size, RETURN_ADDRESS, !mt_reentered());
}

MT_EXPORT char *memtrack_strdup_caller(const char *s)
{
    return process_strndup(s, strlen(s), RETURN_ADDRESS, !mt_reentered(), MT_KIND_STRDUP);
}

MT_EXPORT char *memtrack_strndup_caller(const char *s, size_t n)
{
    return process_strndup(s, strnlen(s, n), RETURN_ADDRESS, !mt_reentered(), MT_KIND_STRNDUP);
}

MT_EXPORT void memtrack_free_caller(void *ptr)
{
    process_free(ptr, RETURN_ADDRESS, true);
}

MT_EXPORT void *memtrack_realloc_caller(void *ptr, size_t size)
{
    return process_realloc(ptr, size, RETURN_ADDRESS, !mt_reentered());
}

MT_EXPORT void *memtrack_reallocarray_caller(void *ptr, size_t count, size_t size)
{
    return process_reallocarray(ptr, count, size, RETURN_ADDRESS, !mt_reentered());
}

MT_EXPORT void *memtrack_memalign_caller(size_t alignment, size_t size)
{
    return process_memalign(alignment, size, RETURN_ADDRESS, !mt_reentered());
}

MT_EXPORT void *memtrack_aligned_alloc_caller(size_t alignment, size_t size)
{
    return process_aligned_alloc(alignment, size, RETURN_ADDRESS, !mt_reentered());
}

MT_EXPORT int memtrack_posix_memalign_caller(void **out, size_t alignment, size_t size)
{
    return process_posix_memalign(out, alignment, size, RETURN_ADDRESS, !mt_reentered());
}

MT_EXPORT void *memtrack_valloc_caller(size_t size)
{
    return process_valloc(size, RETURN_ADDRESS, !mt_reentered());
}

MT_EXPORT size_t malloc_usable_size(void *ptr)
{
    mt_block_t b;
    if (ptr == NULL)
        return 0;
    if (!mt_reentered()) {
        switch (mt_peek_block(ptr, &b)) {
        case MT_FOUND_LIVE:
        case MT_FOUND_OWNED: return b.size; /* the guard starts right after the requested bytes */
        case MT_FOUND_FREED: return 0;      /* freed: its header is our guard, not glibc's */
        case MT_FOUND_NONE: break;
        }
    }
    return mt_libc_usable_size(ptr);
}

/* ---- whether it is the process's allocator ---- */

#ifdef MT_GLIBC_MALLOC
/* libmemtrack serves the process only when its malloc and free come first in the loader's
 * search: the program linked with it before the C library (memtrack cc keeps it in the link
 * whatever --as-needed says), or preloaded. A plain program that links a library built with
 * memtrack, or dlopen()s one, loads it after the C library: only the macros' blocks are
 * tracked then, and one that untracked code frees reaches the C library's free, which
 * aborts. Said once, at load time, with the fix. */
/* Our own definitions, which &malloc would not give (it is the process's, interposable). */
#if defined(__GNUC__) && !defined(__clang__)
#define SAME_ATTRIBUTES_AS(f) __attribute__((copy(f)))
#else
#define SAME_ATTRIBUTES_AS(f)
#endif
extern __typeof__(malloc) mt_own_malloc __attribute__((alias("malloc"), visibility("hidden")))
SAME_ATTRIBUTES_AS(malloc);
extern __typeof__(free) mt_own_free __attribute__((alias("free"), visibility("hidden")))
SAME_ATTRIBUTES_AS(free);

void mt_allocator_check(void)
{
    static const char *const names[] = {"malloc", "free"};
    void *const ours[] = {(void *)(uintptr_t)&mt_own_malloc, (void *)(uintptr_t)&mt_own_free};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        /* (not dlsym(RTLD_DEFAULT): it may answer a stub in the program, first_definition.c) */
        void *first = mt_first_definition(names[i]);
        Dl_info found;
        if (first == NULL || first == ours[i] || dladdr(first, &found) == 0)
            continue;
        const char *module = found.dli_fname != NULL ? strrchr(found.dli_fname, '/') : NULL;
        module = module != NULL ? module + 1 : found.dli_fname != NULL ? found.dli_fname : "?";
        mt_buf_t b;
        mt_buf_init(&b, mt_out_fd());
        mt_buf_line(&b);
        mt_buf_fmt(
            &b,
            "libmemtrack is loaded but is not the process's allocator: %s is %s's, found first (a "
            "library built with memtrack brought libmemtrack in, or dlopen() did)\n",
            names[i], module);
        mt_buf_line(&b);
        mt_buf_str(&b, "  only blocks made by code built with memtrack are tracked, and one that "
                       "other code frees reaches the C library's free, which aborts\n");
        mt_buf_line(&b);
        mt_buf_str(&b, "  link the program itself with memtrack cc (or -Wl,--push-state,"
                       "--no-as-needed -lmemtrack -Wl,--pop-state before its other libraries), "
                       "or run it with memtrack run --preload\n");
        mt_buf_flush(&b);
        return;
    }
}
#endif

#endif /* MT_PROCESS_MALLOC */
