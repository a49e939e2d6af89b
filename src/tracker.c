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
#include <signal.h>
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
    mt_mem_lock_all(); /* last: the tracker allocates for itself under its other locks */
}

static void fork_parent(void)
{
    mt_mem_unlock_all();
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
    mt_mem_unlock_all();
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
    mt_crash_install();
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

bool mt_fill_new = true;
bool mt_fill_freed = true;

static unsigned log2_of(size_t v)
{
    return (unsigned)__builtin_ctzll((unsigned long long)v);
}

size_t mt_block_front(unsigned align_shift)
{
    return mt_front_size(guard_bytes, (size_t)1 << align_shift);
}

size_t mt_block_back(void)
{
    return guard_bytes;
}

static size_t block_front(const mt_block_t *b)
{
    return mt_block_front(MT_META_ALIGN_SHIFT(b->meta));
}

static void freeze_options(void)
{
    if (MT_UNLIKELY(!atomic_load_explicit(&mt_options_frozen, memory_order_acquire))) {
        mt_init();
        guard_bytes = mt_opt.guard;
        mt_fill_new = mt_opt.fill_new != 0;
        mt_fill_freed = mt_opt.fill_freed != 0;
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

/* ---- debugging aids: break_on, check_every ------------------------------------------- */

/* break_on=N: say which allocation it is, then stop in the debugger (or die of SIGTRAP). */
static MT_NOINLINE void break_now(uint64_t seq, size_t size, uint32_t site)
{
    mt_buf_t b;
    mt_buf_init(&b, mt_out_fd());
    mt_buf_line(&b);
    mt_buf_str(&b, "break_on=");
    mt_buf_u64(&b, seq);
    mt_buf_str(&b, ": allocation #");
    mt_buf_u64(&b, seq);
    mt_buf_str(&b, " (");
    mt_buf_count(&b, size, "byte", "bytes");
    mt_buf_str(&b, ") at ");
    mt_buf_site(&b, site);
    mt_buf_str(&b, " by ");
    mt_buf_str(&b, mt_kind_names[mt_site_get(site)->kind]);
    mt_buf_str(&b, "; raising SIGTRAP\n");
    mt_out_lock();
    mt_buf_flush(&b);
    mt_out_unlock();
    raise(SIGTRAP);
}

static atomic_size_t operations; /* tracked allocations and frees, for check_every */

/* check_every=N: every Nth tracked allocation or free checks every block. Errors it finds
 * name the operation's site as a periodic check. */
static MT_NOINLINE void periodic_check(uint32_t site)
{
    size_t every = mt_opt.check_every;
    if (every == 0 ||
        (atomic_fetch_add_explicit(&operations, 1, memory_order_relaxed) + 1) % every != 0)
        return;
    const mt_site_t *s = mt_site_get(site);
    uint32_t found = s->file != NULL
                         ? mt_site_id(s->file, s->line, s->func, MT_KIND_PERIODIC, s->owner)
                         : mt_site_pc(s->pc, MT_KIND_PERIODIC);
    (void)mt_check_all(found);
}

#define AFTER_OPERATION(site)                                                            \
    do {                                                                                 \
        if (MT_UNLIKELY(mt_opt.check_every != 0))                                        \
            periodic_check(site);                                                        \
    } while (0)

/* ---- allocating ---------------------------------------------------------------------- */

static unsigned char *libc_block(size_t total, size_t align, bool zero)
{
    if (align > MT_MIN_ALIGN)
        return mt_libc_memalign(align, total);
    if (zero)
        return mt_libc_calloc(1, total); /* keeps fresh pages untouched for big blocks */
    return mt_libc_malloc(total);
}

void *mt_alloc(size_t size, size_t align, uint32_t site, bool zero)
{
    if (MT_UNLIKELY(mt_busy)) /* a nested call (signal handler...): not tracked */
        return align > MT_MIN_ALIGN ? mt_libc_memalign(align, size)
                                    : zero ? mt_libc_calloc(1, size) : mt_libc_malloc(size);
    freeze_options();
    if (align < MT_MIN_ALIGN)
        align = MT_MIN_ALIGN;
    /* Records keep alignments up to 2^31 (MT_META_ALIGN_SHIFT); no allocator gives more. */
    if (MT_UNLIKELY(align > ((size_t)1 << 31)))
        return fail(ENOMEM);
    size_t front = mt_front_size(guard_bytes, align), back = guard_bytes;
    if (MT_UNLIKELY(size > SIZE_MAX / 2 - front - back))
        return fail(ENOMEM);
    size_t total = front + size + back;
    unsigned char *raw = libc_block(total, align, zero);
    /* Out of memory: what the quarantine holds goes back to the C library first. */
    if (MT_UNLIKELY(raw == NULL) && mt_quarantine_drain(site) != 0)
        raw = libc_block(total, align, zero);
    if (MT_UNLIKELY(raw == NULL))
        return fail(ENOMEM);
    unsigned char *user = raw + front;
    mt_guard_fill(user, size, front, back);
    if (zero) {
        if (align > MT_MIN_ALIGN)
            memset(user, 0, size);
    } else if (mt_fill_new) {
        memset(user, MT_ALLOC_FILL_BYTE, size);
    }

    uint64_t seq = mt_next_seq();
    uint64_t meta = MT_META_MAKE(seq, mt_thread(), log2_of(align));
    if (MT_UNLIKELY(!mt_table_track((uintptr_t)user, size, meta, site))) {
        /* No room for the record: fail cleanly rather than hand out an untracked block. */
        mt_libc_free(raw);
        return fail(ENOMEM);
    }
    mt_stats_alloc(size);
    if (MT_UNLIKELY(mt_opt.break_on == seq))
        break_now(seq, size, site);
    AFTER_OPERATION(site);
    return user;
}

/* ---- guard damage ---------------------------------------------------------------------- */

/* Reports damage found by mt_guard_check for block b (a copy). */
static void report_guard_damage(const mt_block_t *b, uint32_t found_site,
                                const mt_guard_damage_t *under, const mt_guard_damage_t *over)
{
    mt_error_t e = {.addr = mt_block_addr(b), .size = b->size, .seq = MT_META_SEQ(b->meta),
                    .thread = MT_META_THREAD(b->meta), .alloc_site = b->site,
                    .found_site = found_site};
    if (under->changed != 0) {
        e.kind = MT_ERROR_UNDERRUN;
        e.changed = under->changed;
        e.extent = under->extent;
        mt_error_report(&e);
    }
    if (over->changed != 0) {
        e.kind = MT_ERROR_OVERRUN;
        e.changed = over->changed;
        e.extent = over->extent;
        mt_error_report(&e);
    }
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
    if (!(b->meta & MT_META_FLAG_REPORTED))
        report_guard_damage(b, found_site, &under, &over);
    return 1;
}

int mt_check_block_locked(mt_block_t *b, uint32_t found_site)
{
    int damaged = report_damage(b, found_site);
    if (damaged)
        b->meta |= MT_META_FLAG_REPORTED;
    return damaged;
}

/* ---- finding a pointer ---------------------------------------------------------------- */

/* What a pointer is to the tracker. FOUND_OWNED: a live block a pool, an arena or a
 * registrar owns (free() and realloc() report it and leave it; see register.c). */
typedef enum { FOUND_NONE, FOUND_LIVE, FOUND_FREED, FOUND_OWNED } found_t;

/* A copy of a quarantined record; its meta may change under us (the pending flag). */
static void copy_freed(const mt_block_t *b, mt_block_t *out)
{
    out->hh.key = b->hh.key;
    out->size = b->size;
    out->meta = mt_meta_load(b) & ~MT_META_FLAG_PENDING;
    out->site = b->site;
    out->free_site = b->free_site;
}

/* Copies the record of a live or freed tracked block without changing anything. */
static found_t peek_block(const void *ptr, mt_block_t *out)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    found_t found = FOUND_NONE;
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_locked(s, (uintptr_t)ptr);
    if (b != NULL) {
        *out = *b;
        found = FOUND_LIVE;
    } else if ((b = mt_quarantine_find_locked(s, (uintptr_t)ptr)) != NULL) {
        copy_freed(b, out);
        found = FOUND_FREED;
    }
    mt_unlock(&s->lock);
    return found;
}

/* Where a free happened: known already (tracked code), or only by the caller's address,
 * interned only when needed so the C library's own frees never pay for it. */
typedef struct free_site {
    uint32_t id;
    void *pc;
    mt_kind_t kind;
} free_site_t;

static uint32_t site_of(free_site_t *f)
{
    if (f->id == MT_SITE_NONE && f->pc != NULL)
        f->id = mt_site_pc(f->pc, f->kind);
    return f->id;
}

/* ---- releasing -------------------------------------------------------------------------- */

/* Releases ptr if it is a tracked block, all under one lock round trip: a live block moves
 * to the quarantine (or, when it does not fit, back to the C library) and the quarantine
 * sheds its oldest blocks; a block already freed is a double free. delete_size, when not
 * 0, is what a sized delete says the block holds (checked). Returns what ptr was; with
 * FOUND_NONE nothing was done. */
static found_t release(void *ptr, free_site_t *where, size_t delete_size)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    mt_block_t copy, *held = NULL;
    mt_error_t late[MT_EVICT_REPORTS];
    size_t nlate = 0, budget = mt_opt.quarantine;
    found_t found = FOUND_NONE;
    uint32_t site = MT_SITE_NONE;

    /* The guards are checked next, and the C library reads the chunk's header: start
     * loading them while the table is searched (a prefetch never faults). */
    __builtin_prefetch((const char *)ptr - MT_MIN_ALIGN);
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_locked(s, (uintptr_t)ptr);
    if (b != NULL)
        __builtin_prefetch((const char *)ptr + b->size);
    if (MT_UNLIKELY(b != NULL && (b->meta & MT_META_FLAG_OWNED))) {
        found = FOUND_OWNED; /* it stays in the table: its owner releases it */
        site = site_of(where);
        copy = *b;
    } else if (MT_LIKELY(b != NULL)) {
        found = FOUND_LIVE;
        site = site_of(where);
        mt_table_remove_locked(s, b);
        b->free_site = site;
        copy = *b;
        if (budget != 0 && mt_quarantine_put_locked(s, b, budget)) {
            held = b;
            nlate = mt_quarantine_evict_locked(s, budget, site, late, MT_EVICT_REPORTS);
        } else {
            mt_record_recycle_locked(s, b);
        }
    } else if ((b = mt_quarantine_find_locked(s, (uintptr_t)ptr)) != NULL) {
        found = FOUND_FREED;
        site = site_of(where);
        copy_freed(b, &copy);
    }
    mt_unlock(&s->lock);

    if (MT_LIKELY(found == FOUND_LIVE)) {
        if (MT_UNLIKELY(delete_size != 0))
            mt_check_delete_size(&copy, site, delete_size);
        mt_check_release(&copy, site); /* the right family: free for malloc, delete for new */
        (void)report_damage(&copy, site);
        if (held != NULL) {
            mt_quarantine_fill_and_publish(held, &copy);
        } else {
            if (mt_opt.unwritten && mt_fill_new &&
                mt_site_get(copy.site)->kind != MT_KIND_CALLOC)
                mt_unwritten_add(copy.site, copy.size,
                                 mt_count_byte((unsigned char *)mt_block_addr(&copy), copy.size,
                                               MT_ALLOC_FILL_BYTE));
            mt_libc_free(mt_block_raw(mt_block_addr(&copy), copy.meta));
        }
        mt_stats_free(copy.size);
        for (size_t i = 0; i < nlate; i++)
            mt_error_report(&late[i]);
        AFTER_OPERATION(site);
    } else if (found == FOUND_FREED) {
        mt_error_double_free(&copy, site);
    } else if (found == FOUND_OWNED) {
        mt_owned_misuse(&copy, site);
    }
    return found;
}

/* A pointer the tracker never made (nor holds in quarantine), released by tracked code:
 * the C library gets it back only when it surely made it (foreign.c). */
static void report_bad_pointer(void *ptr, mt_pointer_class_t why, uint32_t site)
{
    mt_error_t e;
    memset(&e, 0, sizeof e);
    e.kind = MT_ERROR_INVALID_FREE;
    e.found_site = site;
    bool detailed = mt_error_observer != NULL || mt_error_will_print(e.kind, site);
    mt_foreign_describe(ptr, why, detailed, &e);
    mt_error_report(&e);
}

static void release_foreign(void *ptr, uint32_t site)
{
    mt_pointer_class_t why;
    if (MT_UNLIKELY(mt_owned_memory_misuse(ptr, site)))
        return; /* a stale pointer into a pool's or an arena's memory */
    if (MT_LIKELY(mt_foreign_is_libc_block(ptr, &why)))
        mt_libc_free(ptr);
    else
        report_bad_pointer(ptr, why, site);
}

/* A free nested inside the tracker (the C library freeing its own memory while a report
 * is printed, a signal handler): this thread may hold the shard's lock, so only try it.
 * Returns false when the lock is taken: leaking the pointer is safer than guessing. */
static bool free_nested(void *ptr)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    if (!mt_trylock(&s->lock))
        return false;
    bool tracked = mt_table_find_locked(s, (uintptr_t)ptr) != NULL ||
                   mt_quarantine_find_locked(s, (uintptr_t)ptr) != NULL;
    mt_unlock(&s->lock);
    if (!tracked)
        mt_libc_free(ptr);
    return true;
}

bool mt_free_known(void *ptr, uint32_t site, size_t size)
{
    free_site_t where = {site, NULL, MT_KIND_DELETE};
    return release(ptr, &where, size) != FOUND_NONE;
}

void mt_free(void *ptr, uint32_t site, bool from_tracked)
{
    if (ptr == NULL)
        return;
    if (MT_UNLIKELY(mt_busy)) {
        (void)free_nested(ptr);
        return;
    }
    free_site_t where = {site, NULL, MT_KIND_FREE};
    if (release(ptr, &where, 0) != FOUND_NONE)
        return;
    if (from_tracked)
        release_foreign(ptr, site);
    else
        mt_libc_free(ptr);
}

/* ---- reallocating ----------------------------------------------------------------------- */

/* realloc_moves=0: grows or shrinks the block where it is when its C library block has the
 * room; the guards are checked first and rewritten. Returns NULL when it does not fit. */
static void *resize_in_place(void *ptr, size_t size, uint32_t site)
{
    unsigned char *user = ptr;
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    mt_block_t before;
    mt_guard_damage_t under, over;
    bool resized = false, damaged = false;
    uint64_t seq = 0;

    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_locked(s, (uintptr_t)ptr);
    if (b != NULL && size <= SIZE_MAX / 2) {
        size_t front = block_front(b);
        size_t room = mt_libc_usable_size(user - front);
        if (size <= b->size || (room >= front + guard_bytes && room - front - guard_bytes >= size)) {
            before = *b;
            damaged = mt_guard_check(user, b->size, front, guard_bytes, &under, &over);
            if (damaged && under.changed != 0 && mt_site_get(b->site)->kind == MT_KIND_NEW) {
                mt_guard_recheck_cookie(user, front, &under); /* the zero slot (guard.c) */
                damaged = under.changed != 0 || over.changed != 0;
            }
            if (size > b->size && mt_fill_new)
                memset(user + b->size, MT_ALLOC_FILL_BYTE, size - b->size);
            memset(user + size, MT_GUARD_BYTE, guard_bytes);
            seq = mt_next_seq();
            b->size = size;
            b->site = site;
            b->meta = MT_META_MAKE(seq, mt_thread(), MT_META_ALIGN_SHIFT(b->meta));
            resized = true;
        }
    }
    mt_unlock(&s->lock);
    if (!resized)
        return NULL;
    mt_check_release(&before, site); /* realloc of a block new made */
    if (damaged && !(before.meta & MT_META_FLAG_REPORTED))
        report_guard_damage(&before, site, &under, &over);
    mt_stats_free(before.size);
    mt_stats_alloc(size);
    if (MT_UNLIKELY(mt_opt.break_on == seq))
        break_now(seq, size, site);
    return ptr;
}

static void *realloc_live(void *ptr, const mt_block_t *old, size_t size, uint32_t site,
                          bool from_tracked)
{
    if (MT_UNLIKELY(old->meta & MT_META_FLAG_OWNED)) {
        mt_owned_misuse(old, site); /* its memory is not the C library's to move */
        errno = EINVAL;
        return NULL;
    }
    if (size == 0) { /* glibc frees and returns NULL */
        mt_free(ptr, site, from_tracked);
        return NULL;
    }
    if (!mt_opt.realloc_moves) {
        void *same = resize_in_place(ptr, size, site);
        if (same != NULL)
            return same;
    }
    /* Move: a stale pointer to the old block then shows up at once. On failure the old
     * block stays valid and tracked, as the C library's realloc leaves it. */
    void *fresh = mt_alloc(size, 0, site, false);
    if (fresh == NULL)
        return NULL;
    memcpy(fresh, ptr, old->size < size ? old->size : size);
    mt_free(ptr, site, from_tracked);
    return fresh;
}

/* realloc of a block in quarantine: a double free. Nothing is allocated or released. */
static void *realloc_freed(const mt_block_t *old, uint32_t site)
{
    mt_error_double_free(old, site);
    errno = EINVAL;
    return NULL;
}

/* realloc by tracked code of a pointer the tracker never made. */
static void *realloc_foreign(void *ptr, size_t size, uint32_t site)
{
    mt_pointer_class_t why;
    if (MT_UNLIKELY(mt_owned_memory_misuse(ptr, site))) {
        errno = EINVAL; /* a stale pointer into a pool's or an arena's memory */
        return NULL;
    }
    if (MT_LIKELY(mt_foreign_is_libc_block(ptr, &why)))
        return mt_libc_realloc(ptr, size);
    report_bad_pointer(ptr, why, site);
    errno = EINVAL;
    return NULL;
}

void *mt_realloc(void *ptr, size_t size, uint32_t site, bool from_tracked)
{
    mt_block_t old;
    if (ptr == NULL)
        return mt_alloc(size, 0, site, false);
    switch (peek_block(ptr, &old)) {
    case FOUND_LIVE:
    case FOUND_OWNED: return realloc_live(ptr, &old, size, site, from_tracked);
    case FOUND_FREED: return realloc_freed(&old, site);
    case FOUND_NONE: break;
    }
    return from_tracked ? realloc_foreign(ptr, size, site) : mt_libc_realloc(ptr, size);
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

/* Untracked callers get the table lookups only: a tracked block is released as tracked,
 * a block in quarantine is a double free, anything else is the C library's. */
MT_EXPORT void free(void *ptr)
{
    if (ptr == NULL)
        return;
    if (MT_UNLIKELY(mt_busy)) {
        (void)free_nested(ptr);
        return;
    }
    free_site_t where = {MT_SITE_NONE, __builtin_return_address(0), MT_KIND_FREE};
    if (release(ptr, &where, 0) == FOUND_NONE)
        mt_libc_free(ptr);
}

static void *realloc_untracked_caller(void *ptr, size_t size, void *pc, mt_kind_t kind)
{
    mt_block_t b;
    if (ptr == NULL || MT_UNLIKELY(mt_busy))
        return mt_libc_realloc(ptr, size);
    switch (peek_block(ptr, &b)) {
    case FOUND_LIVE:
    case FOUND_OWNED: return realloc_live(ptr, &b, size, mt_site_pc(pc, kind), false);
    case FOUND_FREED: return realloc_freed(&b, mt_site_pc(pc, kind));
    case FOUND_NONE: break;
    }
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
    if (mul_overflows(count, size, &total))
        return fail(ENOMEM);
    if (ptr == NULL && tracking_all())
        return mt_alloc(total, 0, CALLER_SITE(REALLOCARRAY), false);
    return realloc_untracked_caller(ptr, total, __builtin_return_address(0),
                                    MT_KIND_REALLOCARRAY);
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
    if (!mt_busy) {
        switch (peek_block(ptr, &b)) {
        case FOUND_LIVE:
        case FOUND_OWNED: return b.size; /* the guard starts right after the requested bytes */
        case FOUND_FREED: return 0;     /* freed: its header is our guard, not glibc's */
        case FOUND_NONE: break;
        }
    }
    return mt_libc_usable_size(ptr);
}

#endif /* MT_SANITIZER_ALLOCATOR */

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
    return c.problems + mt_quarantine_check_all(site);
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
