/* alloc.c - making tracked blocks: mt_alloc, the entry points the drop-in macros call for
 * malloc, calloc, strdup and the aligned allocations, and the debugging aids that watch
 * allocations (break_on, check_every).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "api/fail.h"
#include "base/output.h"
#include "checks/page_guard.h"
#include "checks/quarantine.h"
#include "records/stats.h"

static unsigned log2_of(size_t v)
{
    return (unsigned)__builtin_ctzll((unsigned long long)v);
}

void *mt_fail(int err)
{
    mt_stats_failed();
    errno = err;
    return NULL;
}

/* ---- debugging aids: break_on, check_every ------------------------------------------- */

/* break_on=N: say which allocation it is, then stop in the debugger (or die of SIGTRAP). */
MT_NOINLINE void mt_break_now(uint64_t seq, size_t size, uint32_t site)
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
MT_NOINLINE void mt_periodic_check(uint32_t site)
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

/* ---- allocating ---------------------------------------------------------------------- */

static unsigned char *libc_block(size_t total, size_t align, bool zero)
{
    if (align > MT_MIN_ALIGN)
        return mt_libc_memalign(align, total);
    if (zero)
        return mt_libc_calloc(1, total); /* keeps fresh pages untouched for big blocks */
    return mt_libc_malloc(total);
}

/* Out of memory: what the quarantine holds goes back to the C library first, and the block
 * of the layout's size is asked for again; NULL when there is still none. */
static MT_NOINLINE unsigned char *libc_block_drained(size_t size, size_t align, bool zero,
                                                     uint32_t site)
{
    if (mt_quarantine_drain(site) == 0)
        return NULL;
    size_t front = align == MT_MIN_ALIGN ? mt_guard_front : mt_front_size(mt_guard_bytes, align);
    return libc_block(front + size + mt_guard_bytes, align, zero);
}

#ifdef MT_BARE_METAL
/* Blocks handed out untracked because the static buffer had no room for their records:
 * the report says how many and how much memory the tracker wants instead. */
static struct {
    uint64_t blocks, bytes;
} untracked;

void mt_untracked_read(uint64_t *blocks, uint64_t *bytes)
{
    *blocks = untracked.blocks;
    *bytes = untracked.bytes;
}

/* The program still gets its memory: a plain block of the C library, without guards,
 * which a free or realloc by tracked code hands back to it (a pointer the tracker never
 * made, checks/foreign.c), as it does a block of untracked code. */
static MT_NOINLINE void *untracked_block(size_t size, size_t align, bool zero)
{
    unsigned char *p = libc_block(size != 0 ? size : 1, align, zero);
    if (p == NULL)
        return mt_fail(ENOMEM);
    untracked.blocks++;
    untracked.bytes += size;
    return p;
}
#endif

/* A block against an inaccessible page (checks/page_guard.c), tracked as any block; NULL
 * when it cannot be one (the caller then makes an ordinary block). */
static MT_NOINLINE void *page_guarded(size_t size, size_t align, uint32_t site, bool zero,
                                      bool system)
{
    unsigned char *user = mt_page_guard_alloc(size, align, site);
    if (user == NULL)
        return NULL;
    if (!zero && mt_fill_new)
        mt_fill_new_bytes(user, size);
    uint64_t seq = system ? 0 : mt_next_seq();
    uint64_t meta = MT_META_MAKE(seq, mt_thread(), log2_of(align));
    if (!mt_table_track((uintptr_t)user, size, system ? meta | MT_META_FLAG_SYSTEM : meta, site)) {
        mt_page_guard_discard(user, size);
        return NULL;
    }
    if (system) {
        mt_stats_system_alloc(size);
    } else {
        mt_stats_alloc(size);
        if (MT_UNLIKELY(mt_opt.break_on == seq))
            mt_break_now(seq, size, site);
    }
    MT_AFTER_OPERATION(site);
    return user;
}

/* The C library's block, from the address the user sees. */
static unsigned char *raw_of(unsigned char *user, size_t align)
{
    return user - (align == MT_MIN_ALIGN ? mt_guard_front : mt_front_size(mt_guard_bytes, align));
}

/* A block made whose record could not be stored: given back to the C library. */
static MT_NOINLINE void *block_untracked(unsigned char *user, size_t size, size_t align, bool zero)
{
    mt_libc_free(raw_of(user, align));
#ifdef MT_BARE_METAL
    /* A firmware must go on: its block, untracked, counted for the report. */
    return untracked_block(size, align, zero);
#else
    /* No room for the record: fail cleanly rather than hand out an untracked block. */
    return mt_fail(ENOMEM);
#endif
}

/* An allocation's end once its block is made and filled: its sequence number, its record,
 * its counts, break_on. Out of line for alloc_block_idle when the thread's batch of sequence
 * numbers is used up (or it has none yet), or when break_on names the next one, so that the
 * inline end keeps neither the slot's seq_next test nor its number across its calls. */
static MT_NOINLINE void *block_tracked(unsigned char *user, size_t size, size_t align,
                                       uint32_t site, bool zero)
{
    if (MT_UNLIKELY(!mt_thread_crash_ready)) /* this thread's first block */
        mt_crash_thread_start();
    mt_stat_slot_t *counter;
    uint64_t thread_meta;
    uint64_t seq = mt_next_seq_for(&counter, &thread_meta);
    uint64_t meta = MT_META_MAKE(seq, 0, log2_of(align)) | thread_meta;
    if (MT_UNLIKELY(!mt_table_track((uintptr_t)user, size, meta, site)))
        return block_untracked(user, size, align, zero);
    mt_stats_alloc_in(counter, size);
    if (MT_UNLIKELY(mt_opt.break_on == seq))
        mt_break_now(seq, size, site);
    MT_AFTER_OPERATION(site);
    return user;
}

/* A block made inside a system library (mt_site_system): tracked and checked as any, but not
 * the program's: no sequence number (the program's #1, #2... are its own blocks), counted
 * apart, never break_on's. */
static MT_NOINLINE void *block_system(unsigned char *user, size_t size, size_t align, uint32_t site,
                                      bool zero)
{
    uint64_t meta = MT_META_MAKE(0, mt_thread(), log2_of(align)) | MT_META_FLAG_SYSTEM;
    if (MT_UNLIKELY(!mt_table_track((uintptr_t)user, size, meta, site)))
        return block_untracked(user, size, align, zero);
    mt_stats_system_alloc(size);
    MT_AFTER_OPERATION(site);
    return user;
}

/* mt_alloc's body: inline in memtrack_malloc_at too, where malloc's alignment and no
 * zeroing are constants and the alignment's branches fold away, and so does the system's
 * way: maybe_system false, a macro's site is the program's; true, the site is asked where it
 * is needed, not kept across the C library's call. */
static inline __attribute__((always_inline)) void *
alloc_block_idle(size_t size, size_t align, uint32_t site, bool zero, bool idle, bool maybe_system)
{
    if (!idle && MT_UNLIKELY(mt_reentered())) /* a nested call (signal handler...): not tracked */
        return align > MT_MIN_ALIGN ? mt_libc_memalign(align, size)
               : zero               ? mt_libc_calloc(1, size)
                                    : mt_libc_malloc(size);
    /* While this thread's page-guard countdown runs, the layout is frozen (page_guard.h):
     * the common allocation tests the countdown alone. */
    size_t countdown = mt_pg_countdown;
    bool counting = mt_page_guard_counting(countdown);
    if (MT_UNLIKELY(!counting))
        mt_freeze_layout();
    if (align < MT_MIN_ALIGN)
        align = MT_MIN_ALIGN;
    /* Records keep alignments up to 2^31 (MT_META_ALIGN_SHIFT); no allocator gives more. */
    if (MT_UNLIKELY(align > ((size_t)1 << 31)))
        return mt_fail(ENOMEM);
    size_t front = align == MT_MIN_ALIGN ? mt_guard_front : mt_front_size(mt_guard_bytes, align);
    size_t size_max =
        align == MT_MIN_ALIGN ? mt_guard_size_max : SIZE_MAX / 2 - front - mt_guard_bytes;
    if (MT_UNLIKELY(size > size_max))
        return mt_fail(ENOMEM);
    if (MT_LIKELY(counting)) {
        mt_pg_countdown = countdown - 1;
    } else if (MT_UNLIKELY(mt_fail_armed) && mt_fail_now(site, size)) {
        return mt_fail(ENOMEM); /* on purpose (api/fail.c) */
    } else if (mt_page_guard_choose(site)) {
        void *guarded = page_guarded(size, align, site, zero, maybe_system && mt_site_system(site));
        if (guarded != NULL)
            return guarded;
    }
    unsigned char *raw = libc_block(front + size + mt_guard_bytes, align, zero);
    if (MT_UNLIKELY(raw == NULL)) {
        raw = libc_block_drained(size, align, zero, site);
        if (raw == NULL)
            return mt_fail(ENOMEM);
    }
    /* (the front and the guard's size read again, as the retry makes the size again: none is
     * kept across the C library's call in a saved register) */
    unsigned char *user;
    if (align == MT_MIN_ALIGN) {
        size_t back = mt_guard_bytes;
        /* (a back guard of 16 bytes makes the front 16 too: mt_guard_fill_plain) */
        user = raw + (MT_LIKELY(back == 16) ? 16 : mt_guard_front);
        mt_guard_fill_plain(user, size, back);
    } else {
        user = raw + front;
        mt_guard_fill(user, size, front, mt_guard_bytes);
    }
    if (zero) {
        if (align > MT_MIN_ALIGN)
            memset(user, 0, size);
    } else if (mt_fill_new) {
        mt_fill_new_bytes(user, size);
    }

    if (maybe_system && MT_UNLIKELY(mt_site_system(site)))
        return block_system(user, size, align, site, zero);
    /* The sequence number from the thread's batch, unless break_on names it; otherwise the
     * rest out of line. */
    mt_stat_slot_t *counter = mt_stat_mine;
    if (MT_UNLIKELY(!mt_seq_ready(counter) || counter->seq_next == mt_opt.break_on))
        return block_tracked(user, size, align, site, zero);
    uint64_t thread_meta;
    uint64_t seq = mt_seq_take(counter, &thread_meta);
    uint64_t meta = MT_META_MAKE(seq, 0, log2_of(align)) | thread_meta;
    if (MT_UNLIKELY(!mt_table_track_inline((uintptr_t)user, size, meta, site)))
        return block_untracked(user, size, align, zero);
    /* (a slot with a batch is its thread's own, never the crowded one) */
    mt_stat_alloc_event(counter, size, false);
    MT_AFTER_OPERATION(site);
    return user;
}

void *mt_alloc(size_t size, size_t align, uint32_t site, bool zero)
{
    return alloc_block_idle(size, align, site, zero, false, true);
}

void *mt_alloc_placed(size_t size, size_t align, uint32_t site, bool zero)
{
    return alloc_block_idle(size, align, site, zero, false, false);
}

/* ---- entry points for code built with the header --------------------------------------- */

/* The macro's place, and the stack of calls that led to it (records/stack.h). */
#define SITE(kind)                                                                                 \
    mt_site_here(file, line, func, MT_KIND_##kind, __builtin_frame_address(0),                     \
                 __builtin_return_address(0))
/* SITE for a caller that found mt_busy 0 */
#define SITE_IDLE(kind)                                                                            \
    mt_site_here_idle(file, line, func, MT_KIND_##kind, __builtin_frame_address(0),                \
                      __builtin_return_address(0), true)

MT_EXPORT void *memtrack_malloc_at(size_t size, const char *file, int line, const char *func)
{
    MT_ENTRY();
    /* mt_busy tested once: a nested call takes mt_alloc's way, its site made as before */
    if (MT_UNLIKELY(mt_reentered()))
        return mt_alloc_placed(size, 0, SITE(MALLOC), false);
    return alloc_block_idle(size, 0, SITE_IDLE(MALLOC), false, true, false);
}

MT_EXPORT void *memtrack_calloc_at(size_t count, size_t size, const char *file, int line,
                                   const char *func)
{
    MT_ENTRY();
    size_t total;
    if (mt_mul_overflows(count, size, &total))
        return mt_fail(ENOMEM);
    return mt_alloc_placed(total, 0, SITE(CALLOC), true);
}

MT_EXPORT char *memtrack_strdup_at(const char *s, const char *file, int line, const char *func)
{
    MT_ENTRY();
    size_t n = strlen(s) + 1;
    char *copy = mt_alloc_placed(n, 0, SITE(STRDUP), false);
    if (copy != NULL)
        memcpy(copy, s, n);
    return copy;
}

MT_EXPORT char *memtrack_strndup_at(const char *s, size_t n, const char *file, int line,
                                    const char *func)
{
    MT_ENTRY();
    size_t len = strnlen(s, n);
    char *copy = mt_alloc_placed(len + 1, 0, SITE(STRNDUP), false);
    if (copy != NULL) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

MT_EXPORT void *memtrack_aligned_alloc_at(size_t alignment, size_t size, const char *file, int line,
                                          const char *func)
{
    MT_ENTRY();
    if (!mt_power_of_two(alignment))
        return mt_fail(EINVAL);
    return mt_alloc_placed(size, alignment, SITE(ALIGNED_ALLOC), false);
}

MT_EXPORT int memtrack_posix_memalign_at(void **out, size_t alignment, size_t size,
                                         const char *file, int line, const char *func)
{
    MT_ENTRY();
    if (!mt_power_of_two(alignment) || alignment % sizeof(void *) != 0) {
        mt_stats_failed();
        return EINVAL;
    }
    int saved = errno;
    void *p = mt_alloc_placed(size, alignment, SITE(POSIX_MEMALIGN), false);
    errno = saved; /* posix_memalign reports through its result, not errno */
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

MT_EXPORT void *memtrack_memalign_at(size_t alignment, size_t size, const char *file, int line,
                                     const char *func)
{
    MT_ENTRY();
    return mt_alloc_placed(size, mt_round_alignment(alignment), SITE(MEMALIGN), false);
}

MT_EXPORT void *memtrack_valloc_at(size_t size, const char *file, int line, const char *func)
{
    MT_ENTRY();
    return mt_alloc_placed(size, (size_t)sysconf(_SC_PAGESIZE), SITE(VALLOC), false);
}
