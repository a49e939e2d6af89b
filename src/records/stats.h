/* stats.h - counters and sequence numbers.
 *
 * The common case of each event is inline here, in the allocation and free paths (a call
 * and the registers it clobbers cost more than the event itself); stats.c has the rest and
 * the rules the counters keep (its opening comment).
 */
#ifndef MT_STATS_H
#define MT_STATS_H

#include "base/platform.h"
#include "records/timeline.h"

#define MT_PUBLISH_EVERY 64u               /* events between a shared thread's publishes */
#define MT_PUBLISH_BYTES ((size_t)1 << 20) /* a block this large is published at once */

/* A thread's counters. */
typedef struct mt_stat_slot {
    /* Written by the owner only, read by anyone. */
    /* Made here, and released here (blocks and their bytes). Live bytes and blocks are
     * the differences, which no event need write a counter of its own for. */
    _Atomic uint64_t total_bytes, total_blocks, freed_bytes, frees, failed;
    _Atomic uint64_t solo_peak_bytes, solo_peak_blocks; /* exact while not shared */
    /* The owner's own. */
    int64_t published_bytes, published_blocks; /* what the shared totals have of ours */
    uint64_t published_events;
    unsigned publish_countdown; /* events until the next publish (shared) */
    /* While not shared: the totals made past which the live bytes and blocks pass their
     * peaks (the peaks plus what was released), so that an allocation compares once each. */
    uint64_t peak_total_bytes, peak_total_blocks;
    /* The next allocation and free counts that may be due a timeline sample: every count
     * before is not (the mask only grows), so an event needs one compare. */
    uint64_t alloc_sample_at, free_sample_at;
    bool crowded;               /* the fallback slot several threads share: add atomically */
    uint64_t seq_next, seq_end; /* the current batch: [next, end) */
    uint64_t seq_epoch;         /* the batch epoch it was taken in */
    uint64_t seq_thread_meta;   /* its owner's part of a block's meta (mt_stat_thread_meta) */
    /* The registry. */
    struct mt_stat_slot *next; /* set before the slot is published, then constant */
    atomic_bool in_use;
    /* Blocks made inside system libraries, by their owner (no peaks, no sequence numbers,
     * no timeline: not the program's). */
    _Atomic uint64_t system_bytes, system_blocks, system_freed_bytes, system_frees;
} __attribute__((aligned(64))) mt_stat_slot_t;

/* Read by every event, written almost never: a cache line of their own. */
typedef struct mt_stat_flags {
    _Alignas(64) atomic_bool shared; /* two slots have been held at once */
    _Atomic uint64_t seq_epoch;      /* a checkpoint retired every batch taken before */
} mt_stat_flags_t;
extern MT_HIDDEN mt_stat_flags_t mt_stat_flags;

/* The calling thread's own slot. Until its first event, and for a thread that could get none
 * (it shares the crowded fallback, which is never kept here), mt_stat_unowned: never written,
 * marked crowded and with an empty batch, so that the fast paths below turn to their slow
 * ones on a test they make anyway. */
extern MT_HIDDEN MT_TLS mt_stat_slot_t *mt_stat_mine;
extern MT_HIDDEN mt_stat_slot_t mt_stat_unowned;

/* The rarer cases, in stats.c. */
void mt_stats_alloc_slow(size_t size);
void mt_stats_alloc_more(mt_stat_slot_t *s, bool shared);
void mt_stats_free_slow(size_t size);
void mt_stats_free_more(mt_stat_slot_t *s);
void mt_stats_sample(uint64_t count, uint64_t *sample_at);
uint64_t mt_next_seq_slow(void);
/* The calling thread's part of a block's meta: MT_META_MAKE(0, mt_thread(), 0) (table.h). */
uint64_t mt_stat_thread_meta(void);

void mt_stats_failed(void);
/* Several blocks released at once: bytes in all, blocks of them (stats.c). */
void mt_stats_free_many(uint64_t bytes, uint64_t blocks);
/* A block made inside a system library, and one released: counted apart (out of line). */
void mt_stats_system_alloc(size_t size);
void mt_stats_system_free(size_t size);
/* The program's counters: blocks made inside system libraries are not in them. */
void mt_stats_read(memtrack_stats_t *out);
void mt_stats_system_read(mt_system_counts_t *out);
/* Threads other than the caller that hold a slot now: alive, and tracking. */
unsigned mt_stats_other_threads(void);
/* The sequence number the next block will get. */
uint64_t mt_seq_upcoming(void);

/* The owner adds with a plain load and store; the crowded fallback slot, which several
 * threads share, atomically. Callers pass crowded as a constant, so the common case carries
 * no test per counter. */
static inline __attribute__((always_inline)) uint64_t mt_stat_add(bool crowded, _Atomic uint64_t *c,
                                                                  uint64_t d)
{
    if (MT_UNLIKELY(crowded))
        return atomic_fetch_add_explicit(c, d, memory_order_relaxed) + d;
    uint64_t v = atomic_load_explicit(c, memory_order_relaxed) + d;
    atomic_store_explicit(c, v, memory_order_relaxed);
    return v;
}

/* The crowded slot's counts, which other threads pass, are tested against the mask itself. */
static inline void mt_stat_sample_crowded(_Atomic uint64_t *count)
{
    if (MT_UNLIKELY((atomic_load_explicit(count, memory_order_relaxed) &
                     atomic_load_explicit(&mt_timeline_mask, memory_order_relaxed)) == 0))
        mt_timeline_sample();
}

/* The timeline's sample, when the event that took *counter to count makes one due: the crowded
 * slot's count is tested against the mask itself, an owned slot's compared with *sample_at. */
static inline __attribute__((always_inline)) void
mt_stat_sample_due(bool crowded, _Atomic uint64_t *counter, uint64_t count, uint64_t *sample_at)
{
    if (crowded)
        mt_stat_sample_crowded(counter);
    else if (MT_UNLIKELY(count == *sample_at))
        mt_stats_sample(count, sample_at);
}

/* Whether a shared event publishes: every MT_PUBLISH_EVERY events, and at once for a block of
 * MT_PUBLISH_BYTES or more. (The big block's test comes first and shortens the countdown, so
 * that the compiler keeps the countdown's decrement in memory with its test.) */
static inline __attribute__((always_inline)) bool mt_stat_publish_due(mt_stat_slot_t *s,
                                                                      size_t size)
{
    if (MT_UNLIKELY(size >= MT_PUBLISH_BYTES))
        s->publish_countdown = 1;
    return MT_UNLIKELY(--s->publish_countdown == 0);
}

/* The events' bodies: inline below for the thread's own slot, and in stats.c for the crowded
 * one. The rarer rest (a new peak while one thread tracks, a publish once shared) is out of
 * line, so that the common case saves no registers. */
static inline __attribute__((always_inline)) void mt_stat_alloc_event(mt_stat_slot_t *s,
                                                                      size_t size, bool crowded)
{
    uint64_t total_bytes = mt_stat_add(crowded, &s->total_bytes, size);
    uint64_t total_blocks = mt_stat_add(crowded, &s->total_blocks, 1);
    bool shared = atomic_load_explicit(&mt_stat_flags.shared, memory_order_relaxed), more;
    if (MT_LIKELY(!shared)) {
        if (!crowded) {
            more = total_bytes > s->peak_total_bytes || total_blocks > s->peak_total_blocks;
        } else { /* (signed: a peak is never negative, so a count below zero never passes it) */
            int64_t bytes = (int64_t)(total_bytes -
                                      atomic_load_explicit(&s->freed_bytes, memory_order_relaxed));
            int64_t blocks =
                (int64_t)(total_blocks - atomic_load_explicit(&s->frees, memory_order_relaxed));
            more =
                bytes > (int64_t)atomic_load_explicit(&s->solo_peak_bytes, memory_order_relaxed) ||
                blocks > (int64_t)atomic_load_explicit(&s->solo_peak_blocks, memory_order_relaxed);
        }
    } else {
        more = mt_stat_publish_due(s, size);
    }
    if (MT_UNLIKELY(more))
        mt_stats_alloc_more(s, shared);
    else
        mt_stat_sample_due(crowded, &s->total_blocks, total_blocks, &s->alloc_sample_at);
}

static inline __attribute__((always_inline)) void mt_stat_free_event(mt_stat_slot_t *s, size_t size,
                                                                     bool crowded)
{
    mt_stat_add(crowded, &s->freed_bytes, size);
    uint64_t frees = mt_stat_add(crowded, &s->frees, 1);
    bool shared = atomic_load_explicit(&mt_stat_flags.shared, memory_order_relaxed);
    if (MT_LIKELY(!shared) && !crowded) {
        s->peak_total_bytes += size;
        s->peak_total_blocks++;
    }
    if (MT_UNLIKELY(shared) && mt_stat_publish_due(s, size))
        mt_stats_free_more(s);
    else
        mt_stat_sample_due(crowded, &s->frees, frees, &s->free_sample_at);
}

/* Counts a block made, in the slot mt_next_seq_for gave (or the thread's own). The thread's own
 * slot is never the crowded fallback: a "crowded" slot here is mt_stat_unowned, and the event
 * takes the out-of-line way. */
static inline __attribute__((always_inline)) void mt_stats_alloc_in(mt_stat_slot_t *s, size_t size)
{
    if (MT_LIKELY(!s->crowded))
        mt_stat_alloc_event(s, size, false);
    else
        mt_stats_alloc_slow(size);
}

static inline __attribute__((always_inline)) void mt_stats_alloc(size_t size)
{
    mt_stats_alloc_in(mt_stat_mine, size);
}

/* Counts a block released. */
static inline __attribute__((always_inline)) void mt_stats_free(size_t size)
{
    mt_stat_slot_t *s = mt_stat_mine;
    if (MT_LIKELY(!s->crowded))
        mt_stat_free_event(s, size, false);
    else
        mt_stats_free_slow(size);
}

/* Whether s's batch has a sequence number left that no checkpoint has retired (never
 * mt_stat_unowned's: its batch is empty); mt_seq_take then takes it, and gives the thread's
 * part of the block's meta. */
static inline __attribute__((always_inline)) bool mt_seq_ready(const mt_stat_slot_t *s)
{
    return s->seq_next != s->seq_end &&
           s->seq_epoch == atomic_load_explicit(&mt_stat_flags.seq_epoch, memory_order_relaxed);
}

static inline __attribute__((always_inline)) uint64_t mt_seq_take(mt_stat_slot_t *s,
                                                                  uint64_t *thread_meta)
{
    *thread_meta = s->seq_thread_meta;
    return s->seq_next++;
}

/* The next block's sequence number: the thread's batch, while it lasts and no checkpoint has
 * retired it. *counter gets the thread's slot as read here, for mt_stats_alloc_in once the
 * block is tracked: the allocation reads its thread's slot once. *thread_meta gets the
 * thread's part of the block's meta (mt_stat_thread_meta), which its own slot keeps: the
 * batch's fast path reads no thread number. */
static inline __attribute__((always_inline)) uint64_t mt_next_seq_for(mt_stat_slot_t **counter,
                                                                      uint64_t *thread_meta)
{
    mt_stat_slot_t *s = mt_stat_mine;
    *counter = s;
    if (MT_LIKELY(mt_seq_ready(s)))
        return mt_seq_take(s, thread_meta);
    *thread_meta = mt_stat_thread_meta();
    return mt_next_seq_slow();
}

static inline __attribute__((always_inline)) uint64_t mt_next_seq(void)
{
    mt_stat_slot_t *counter;
    uint64_t thread_meta;
    return mt_next_seq_for(&counter, &thread_meta);
}

#endif /* MT_STATS_H */
