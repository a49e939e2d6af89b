/* tracker.c - allocation entry points: the memtrack_*_at functions the macros call, and
 * the process's own malloc, free... for code built without the header.
 *
 * Two doors lead in. Code built with MEMORY_CONTROL_ON calls memtrack_malloc_at() and
 * friends with its file and line: those blocks are tracked. Everything else (the C
 * library, other libraries, files built without the flag) calls malloc, free... which
 * libmemtrack provides for the process, as glibc allows: new blocks go to the C library
 * untouched, and every pointer released is looked up, so a tracked block freed or
 * realloc'd by a library is handled as tracked, and a library's block freed by tracked
 * code goes back to the C library.
 *
 * With option track_all (memtrack run --preload), that second door tracks too: blocks made
 * through malloc, calloc... are sited by the caller's return address (mt_site_pc), and
 * report.c counts apart those made inside system libraries (place.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

const char *const mt_kind_names[MT_KIND_COUNT] = {
#define MT_KIND_NAME(name, text, family) text,
    MT_KIND_LIST(MT_KIND_NAME)
#undef MT_KIND_NAME
};

const unsigned char mt_kind_release[MT_KIND_COUNT] = {
#define MT_KIND_FAMILY(name, text, family) MT_KIND_##family,
    MT_KIND_LIST(MT_KIND_FAMILY)
#undef MT_KIND_FAMILY
};

atomic_int mt_state;

/* Guard bytes of every block, fixed when the first block is made (option `guard`). */
static size_t guard_bytes;

/* ---- lifecycle ----------------------------------------------------------------------- */

static void fork_prepare(void)
{
    mt_report_lock();
    mt_owners_lock_all();
    mt_table_lock_all();
    mt_sites_lock_all();
    mt_errors_lock_all();
    mt_timeline_lock();
    mt_out_lock();
    mt_symbols_lock_all();
}

static void fork_parent(void)
{
    mt_symbols_unlock_all();
    mt_out_unlock();
    mt_timeline_unlock();
    mt_errors_unlock_all();
    mt_sites_unlock_all();
    mt_table_unlock_all();
    mt_owners_unlock_all();
    mt_report_unlock();
}

static void fork_child(void)
{
    mt_symbols_unlock_all();
    mt_out_unlock();
    mt_out_after_fork_child();
    mt_timeline_unlock();
    mt_errors_unlock_all();
    mt_sites_unlock_all();
    mt_table_unlock_all();
    mt_owners_unlock_all();
    mt_report_unlock();
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_once_fn(void)
{
    mt_busy++;
    mt_options_init();
    (void)pthread_atfork(fork_prepare, fork_parent, fork_child);
    (void)mt_libc_usable_size(NULL); /* resolve it now, not inside a lock */
    if (mt_opt.verbose) {
        mt_buf_t b;
        mt_buf_init(&b, mt_out_fd());
        mt_buf_line(&b);
        mt_buf_str(&b, "tracking ");
        mt_buf_str(&b, mt_program_name());
        mt_buf_str(&b, " (pid ");
        mt_buf_u64(&b, (uint64_t)getpid());
        mt_buf_str(&b, "), guard ");
        mt_buf_u64(&b, mt_opt.guard);
        mt_buf_str(&b, " bytes\n");
        mt_buf_flush(&b);
    }
    mt_busy--;
    atomic_store(&mt_state, 1);
}

void mt_init(void)
{
    if (MT_LIKELY(atomic_load_explicit(&mt_state, memory_order_acquire) != 0))
        return;
    pthread_once(&init_once, init_once_fn);
}

__attribute__((constructor(101))) static void mt_constructor(void)
{
    mt_init();
}

/* Runs after the program's atexit handlers and static destructors: see report.c. */
__attribute__((destructor(101))) static void mt_destructor(void)
{
    mt_report_at_exit();
}

/* ---- blocks -------------------------------------------------------------------------- */

static unsigned log2_of(size_t v)
{
    return (unsigned)__builtin_ctzll((unsigned long long)v);
}

static size_t block_front(const mt_block_t *b)
{
    return mt_front_size(guard_bytes, (size_t)1 << MT_META_ALIGN_SHIFT(b->meta));
}

static void freeze_options(void)
{
    if (MT_UNLIKELY(!atomic_load_explicit(&mt_options_frozen, memory_order_acquire))) {
        mt_init();
        guard_bytes = mt_opt.guard;
        atomic_store(&mt_options_frozen, true);
    }
}

size_t mt_guard_size(void)
{
    freeze_options();
    return guard_bytes;
}

static void *fail(int err)
{
    mt_stats_failed();
    errno = err;
    return NULL;
}

void *mt_alloc(size_t size, size_t align, uint32_t site, bool zero)
{
    if (MT_UNLIKELY(mt_busy)) /* a nested call (signal handler...): not tracked */
        return align > MT_MIN_ALIGN ? mt_libc_memalign(align, size)
                                    : zero ? mt_libc_calloc(1, size) : mt_libc_malloc(size);
    freeze_options();
    if (align < MT_MIN_ALIGN)
        align = MT_MIN_ALIGN;
    size_t front = mt_front_size(guard_bytes, align), back = guard_bytes;
    if (MT_UNLIKELY(size > SIZE_MAX / 2 - front - back))
        return fail(ENOMEM);
    size_t total = front + size + back;
    unsigned char *raw;
    if (align > MT_MIN_ALIGN)
        raw = mt_libc_memalign(align, total);
    else if (zero)
        raw = mt_libc_calloc(1, total); /* keeps fresh pages untouched for big blocks */
    else
        raw = mt_libc_malloc(total);
    if (MT_UNLIKELY(raw == NULL))
        return fail(ENOMEM);
    unsigned char *user = raw + front;
    mt_guard_fill(user, size, front, back);
    if (zero) {
        if (align > MT_MIN_ALIGN)
            memset(user, 0, size);
    } else {
        memset(user, MT_ALLOC_FILL_BYTE, size);
    }

    uint64_t meta = MT_META_MAKE(mt_next_seq(), mt_thread(), log2_of(align));
    mt_shard_t *s = mt_shard_of((uintptr_t)user);
    mt_lock(&s->lock);
    mt_block_t *b = mt_record_new_locked(s);
    if (MT_LIKELY(b != NULL)) {
        mt_block_set_addr(b, (uintptr_t)user);
        b->size = size;
        b->meta = meta;
        b->site = site;
        b->free_site = MT_SITE_NONE;
        if (MT_UNLIKELY(!mt_table_insert_locked(s, b))) {
            mt_record_recycle_locked(s, b);
            b = NULL;
        }
    }
    mt_unlock(&s->lock);
    if (MT_UNLIKELY(b == NULL)) {
        /* No room for the record: fail cleanly rather than hand out an untracked block. */
        mt_libc_free(raw);
        return fail(ENOMEM);
    }
    mt_stats_alloc(size);
    return user;
}

/* Reports guard damage of a block (a copy, or a live one under its lock). */
static int report_damage(const mt_block_t *b, uint32_t found_site)
{
    mt_guard_damage_t under, over;
    const unsigned char *user = (const unsigned char *)mt_block_addr(b);
    if (MT_UNLIKELY(b->meta & MT_META_FLAG_OWNED) && !mt_block_guarded(b))
        return 0;
    if (MT_LIKELY(!mt_guard_check(user, b->size, block_front(b), guard_bytes, &under, &over)))
        return 0;
    mt_kind_t kind = mt_site_get(b->site)->kind; /* unknown if its site could not be made */
    if (under.changed != 0 && (kind == MT_KIND_NEW || kind == MT_KIND_NONE)) {
        mt_guard_recheck_cookie(user, block_front(b), &under); /* the zero slot (guard.c) */
        if (under.changed == 0 && over.changed == 0)
            return 0;
    }
    if (b->meta & MT_META_FLAG_REPORTED)
        return 1;
    mt_error_t e = {.addr = mt_block_addr(b), .size = b->size, .seq = MT_META_SEQ(b->meta),
                    .thread = MT_META_THREAD(b->meta), .alloc_site = b->site,
                    .found_site = found_site};
    if (under.changed != 0) {
        e.kind = MT_ERROR_UNDERRUN;
        e.changed = under.changed;
        e.extent = under.extent;
        mt_error_report(&e);
    }
    if (over.changed != 0) {
        e.kind = MT_ERROR_OVERRUN;
        e.changed = over.changed;
        e.extent = over.extent;
        mt_error_report(&e);
    }
    return 1;
}

int mt_check_block_locked(mt_block_t *b, uint32_t found_site)
{
    int damaged = report_damage(b, found_site);
    if (damaged)
        b->meta |= MT_META_FLAG_REPORTED;
    return damaged;
}

/* Takes a tracked block out of the table; *out receives a copy of its record. A block a
 * pool, an arena or a registrar owns stays in (release_taken reports it). */
static bool take_block(void *ptr, mt_block_t *out)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    /* The guards are checked next, and the C library reads the chunk's header: start
     * loading them while the table is searched (a prefetch never faults). */
    __builtin_prefetch((const char *)ptr - MT_MIN_ALIGN);
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_locked(s, (uintptr_t)ptr);
    if (b != NULL) {
        __builtin_prefetch((const char *)ptr + b->size);
        *out = *b;
        if (MT_UNLIKELY(b->meta & MT_META_FLAG_OWNED)) {
            mt_unlock(&s->lock);
            return true;
        }
        mt_table_remove_locked(s, b);
        mt_record_recycle_locked(s, b);
    }
    mt_unlock(&s->lock);
    return b != NULL;
}

/* Copies the record of a live tracked block without removing it. */
static bool peek_block(const void *ptr, mt_block_t *out)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_locked(s, (uintptr_t)ptr);
    if (b != NULL)
        *out = *b;
    mt_unlock(&s->lock);
    return b != NULL;
}

/* The last steps of releasing a block already out of the table. */
static void release_taken(const mt_block_t *b, uint32_t site)
{
    if (MT_UNLIKELY(b->meta & MT_META_FLAG_OWNED)) {
        mt_owned_misuse(b, site);
        return;
    }
    mt_check_release(b, site);
    (void)report_damage(b, site);
    mt_stats_free(b->size);
    mt_libc_free((unsigned char *)mt_block_addr(b) - block_front(b));
}

/* A pointer the tracker never made, released by tracked code. */
static void release_foreign(void *ptr, uint32_t site)
{
    if (MT_UNLIKELY(mt_owned_memory_misuse(ptr, site)))
        return; /* a stale pointer into a pool's or an arena's memory */
    mt_libc_free(ptr);
}

/* A free nested inside the tracker (the C library freeing its own memory while a report
 * is printed, a signal handler): this thread may hold the shard's lock, so only try it.
 * Returns false when the lock is taken: leaking the pointer is safer than guessing. */
static bool free_nested(void *ptr)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    if (!mt_trylock(&s->lock))
        return false;
    bool tracked = mt_table_find_locked(s, (uintptr_t)ptr) != NULL;
    mt_unlock(&s->lock);
    if (!tracked)
        mt_libc_free(ptr);
    return true;
}

bool mt_free_known(void *ptr, uint32_t site, size_t size)
{
    mt_block_t b;
    if (!take_block(ptr, &b))
        return false;
    if (size != 0 && !(b.meta & MT_META_FLAG_OWNED)) /* an owned block: release_taken says */
        mt_check_delete_size(&b, site, size);
    release_taken(&b, site);
    return true;
}

void mt_free(void *ptr, uint32_t site, bool from_tracked)
{
    mt_block_t b;
    if (ptr == NULL)
        return;
    if (MT_UNLIKELY(mt_busy)) {
        (void)free_nested(ptr);
        return;
    }
    if (take_block(ptr, &b))
        release_taken(&b, site);
    else if (from_tracked)
        release_foreign(ptr, site);
    else
        mt_libc_free(ptr);
}

void *mt_realloc(void *ptr, size_t size, uint32_t site, bool from_tracked)
{
    mt_block_t old;
    if (ptr == NULL)
        return mt_alloc(size, 0, site, false);
    if (!peek_block(ptr, &old)) {
        if (from_tracked && MT_UNLIKELY(mt_owned_memory_misuse(ptr, site))) {
            errno = EINVAL;
            return NULL;
        }
        return mt_libc_realloc(ptr, size);
    }
    if (MT_UNLIKELY(old.meta & MT_META_FLAG_OWNED)) {
        mt_owned_misuse(&old, site); /* its memory is not the C library's to move */
        errno = EINVAL;
        return NULL;
    }
    if (size == 0) { /* glibc frees and returns NULL */
        mt_free(ptr, site, from_tracked);
        return NULL;
    }
    /* Always move: a stale pointer to the old block then shows up at once. On failure
     * the old block stays valid and tracked, as the C library's realloc leaves it. */
    void *fresh = mt_alloc(size, 0, site, false);
    if (fresh == NULL)
        return NULL;
    memcpy(fresh, ptr, old.size < size ? old.size : size);
    mt_free(ptr, site, from_tracked);
    return fresh;
}

/* ---- entry points for code built with the header --------------------------------------- */

#define SITE(kind) mt_site_id(file, line, func, MT_KIND_##kind, NULL)

static bool mul_overflows(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

MT_EXPORT void *memtrack_malloc_at(size_t size, const char *file, int line, const char *func)
{
    return mt_alloc(size, 0, SITE(MALLOC), false);
}

MT_EXPORT void *memtrack_calloc_at(size_t count, size_t size, const char *file, int line,
                                   const char *func)
{
    size_t total;
    if (mul_overflows(count, size, &total))
        return fail(ENOMEM);
    return mt_alloc(total, 0, SITE(CALLOC), true);
}

MT_EXPORT void *memtrack_realloc_at(void *ptr, size_t size, const char *file, int line,
                                    const char *func)
{
    return mt_realloc(ptr, size, SITE(REALLOC), true);
}

MT_EXPORT void *memtrack_reallocarray_at(void *ptr, size_t count, size_t size,
                                         const char *file, int line, const char *func)
{
    size_t total;
    if (mul_overflows(count, size, &total))
        return fail(ENOMEM);
    return mt_realloc(ptr, total, SITE(REALLOCARRAY), true);
}

MT_EXPORT void memtrack_free_at(void *ptr, const char *file, int line, const char *func)
{
    if (ptr == NULL)
        return; /* free(NULL) is frequent: no site lookup, no lock */
    mt_free(ptr, SITE(FREE), true);
}

MT_EXPORT char *memtrack_strdup_at(const char *s, const char *file, int line,
                                   const char *func)
{
    size_t n = strlen(s) + 1;
    char *copy = mt_alloc(n, 0, SITE(STRDUP), false);
    if (copy != NULL)
        memcpy(copy, s, n);
    return copy;
}

MT_EXPORT char *memtrack_strndup_at(const char *s, size_t n, const char *file, int line,
                                    const char *func)
{
    size_t len = strnlen(s, n);
    char *copy = mt_alloc(len + 1, 0, SITE(STRNDUP), false);
    if (copy != NULL) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

static bool power_of_two(size_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

MT_EXPORT void *memtrack_aligned_alloc_at(size_t alignment, size_t size, const char *file,
                                          int line, const char *func)
{
    if (!power_of_two(alignment))
        return fail(EINVAL);
    return mt_alloc(size, alignment, SITE(ALIGNED_ALLOC), false);
}

MT_EXPORT int memtrack_posix_memalign_at(void **out, size_t alignment, size_t size,
                                         const char *file, int line, const char *func)
{
    if (!power_of_two(alignment) || alignment % sizeof(void *) != 0) {
        mt_stats_failed();
        return EINVAL;
    }
    int saved = errno;
    void *p = mt_alloc(size, alignment, SITE(POSIX_MEMALIGN), false);
    errno = saved; /* posix_memalign reports through its result, not errno */
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

/* memalign rounds a bad alignment up to a power of two, as glibc's does. */
static size_t round_alignment(size_t alignment)
{
    size_t a = MT_MIN_ALIGN;
    while (a < alignment && a <= SIZE_MAX / 2)
        a <<= 1;
    return a;
}

MT_EXPORT void *memtrack_memalign_at(size_t alignment, size_t size, const char *file,
                                     int line, const char *func)
{
    return mt_alloc(size, round_alignment(alignment), SITE(MEMALIGN), false);
}

MT_EXPORT void *memtrack_valloc_at(size_t size, const char *file, int line, const char *func)
{
    return mt_alloc(size, (size_t)sysconf(_SC_PAGESIZE), SITE(VALLOC), false);
}

/* ---- the process's allocator, for code built without the header ------------------------ */

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
        if (mul_overflows(count, size, &total))
            return fail(ENOMEM);
        return mt_alloc(total, 0, CALLER_SITE(CALLOC), true);
    }
    return mt_libc_calloc(count, size);
}

/* The C library's strdup calls malloc from inside itself, which would site the copy in
 * the C library: ours sites it at the caller. Without track_all it is the plain copy. */
MT_EXPORT char *strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = tracking_all() ? mt_alloc(n, 0, CALLER_SITE(STRDUP), false)
                                : mt_libc_malloc(n);
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

MT_EXPORT void free(void *ptr)
{
    mt_block_t b;
    if (ptr == NULL)
        return;
    if (MT_UNLIKELY(mt_busy)) {
        (void)free_nested(ptr);
        return;
    }
    if (take_block(ptr, &b))
        release_taken(&b, CALLER_SITE(FREE));
    else
        mt_libc_free(ptr);
}

MT_EXPORT void *realloc(void *ptr, size_t size)
{
    mt_block_t b;
    if (ptr == NULL && tracking_all())
        return mt_alloc(size, 0, CALLER_SITE(REALLOC), false);
    if (ptr == NULL || MT_UNLIKELY(mt_busy) || !peek_block(ptr, &b))
        return mt_libc_realloc(ptr, size);
    return mt_realloc(ptr, size, CALLER_SITE(REALLOC), false);
}

MT_EXPORT void *reallocarray(void *ptr, size_t count, size_t size)
{
    size_t total;
    if (mul_overflows(count, size, &total))
        return fail(ENOMEM);
    mt_block_t b;
    if (ptr == NULL && tracking_all())
        return mt_alloc(total, 0, CALLER_SITE(REALLOCARRAY), false);
    if (ptr == NULL || MT_UNLIKELY(mt_busy) || !peek_block(ptr, &b))
        return mt_libc_realloc(ptr, total);
    return mt_realloc(ptr, total, CALLER_SITE(REALLOCARRAY), false);
}

MT_EXPORT void *memalign(size_t alignment, size_t size)
{
    if (tracking_all())
        return mt_alloc(size, round_alignment(alignment), CALLER_SITE(MEMALIGN), false);
    return mt_libc_memalign(alignment, size);
}

MT_EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
    if (!power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    if (tracking_all())
        return mt_alloc(size, alignment, CALLER_SITE(ALIGNED_ALLOC), false);
    return mt_libc_memalign(alignment, size);
}

MT_EXPORT int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (!power_of_two(alignment) || alignment % sizeof(void *) != 0)
        return EINVAL;
    int saved = errno;
    void *p = tracking_all()
                  ? mt_alloc(size, alignment, CALLER_SITE(POSIX_MEMALIGN), false)
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
            return fail(ENOMEM);
        return mt_alloc(rounded, page, CALLER_SITE(VALLOC), false);
    }
    return __libc_pvalloc(size);
}

MT_EXPORT size_t malloc_usable_size(void *ptr)
{
    mt_block_t b;
    if (ptr == NULL)
        return 0;
    if (!mt_busy && peek_block(ptr, &b))
        return b.size; /* the guard starts right after the requested bytes */
    return mt_libc_usable_size(ptr);
}

/* ---- introspection ------------------------------------------------------------------- */

typedef struct check_ctx {
    uint32_t site;
    int problems;
} check_ctx_t;

static void check_one(mt_block_t *b, void *ctx)
{
    check_ctx_t *c = ctx;
    c->problems += mt_check_block_locked(b, c->site);
}

int mt_check_all(uint32_t site)
{
    check_ctx_t c = {site, 0};
    mt_busy++;
    mt_table_foreach(check_one, &c);
    mt_busy--;
    return c.problems;
}

MT_EXPORT int memtrack_check_at(const char *file, int line, const char *func)
{
    mt_init();
    return mt_check_all(mt_site_id(file, line, func, MT_KIND_CHECK, NULL));
}

#undef memtrack_check
MT_EXPORT int memtrack_check(void)
{
    mt_init();
    return mt_check_all(mt_site_pc(__builtin_return_address(0), MT_KIND_CHECK));
}
