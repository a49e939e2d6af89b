/* owned_log.h - what a tracked arena's allocation asks of the tracker, inline: its number
 * and count (mt_owned_log), and whether the page guards are due (mt_owned_paged_due).
 *
 * Inline, these read the tracker's thread-local variables, which an untracked pool or arena
 * must never reach: only the tracked side includes this header (api/arena_tracked.c, and
 * api/register.c for mt_owned_meta), and it runs on the tracked path alone (api/arena.c calls it
 * through functions, which test/e2e/pool_nocalls.sh stubs). Their calls and the registers they
 * saved were a tenth of an arena allocation (tools/bench/README.md, "Pools and arenas").
 */
#ifndef MT_OWNED_LOG_H
#define MT_OWNED_LOG_H

#include "base/lock.h"
#include "checks/page_guard.h"
#include "records/stats.h"

/* An owned block's meta: its number (*seq), this thread's part, its alignment. The thread's
 * slot is read once, for the number, the meta and the count (*counter), as malloc's path
 * reads it. */
static inline __attribute__((always_inline)) uint64_t
mt_owned_meta(size_t align, mt_stat_slot_t **counter, uint64_t *seq)
{
    if (align < MT_MIN_ALIGN)
        align = MT_MIN_ALIGN;
    uint64_t thread_meta;
    *seq = mt_next_seq_for(counter, &thread_meta);
    return MT_META_MAKE(*seq, 0, (unsigned)__builtin_ctzll(align)) | thread_meta |
           MT_META_FLAG_OWNED;
}

/* See api/owned.h: mt_owned_log. */
static inline __attribute__((always_inline)) uint64_t mt_owned_log_inline(size_t size, size_t align,
                                                                          uint32_t site)
{
    /* (inside the tracker, a signal handler's: untracked, as mt_owned_insert's, so that
     * the thread's counters are never written by two hands at once) */
    if (MT_UNLIKELY(mt_reentered()) || site == MT_SITE_NONE)
        return 0;
    mt_stat_slot_t *counter;
    uint64_t seq;
    uint64_t meta = mt_owned_meta(align, &counter, &seq);
    mt_stats_alloc_in(counter, size);
    return meta;
}

/* See api/owned.h: mt_owned_paged_due. */
static inline __attribute__((always_inline)) bool mt_owned_paged_due_inline(void)
{
    size_t countdown = mt_pg_countdown;
    if (MT_LIKELY(mt_page_guard_counting(countdown))) {
        mt_pg_countdown = countdown - 1;
        return false;
    }
    return true;
}

#endif /* MT_OWNED_LOG_H */
