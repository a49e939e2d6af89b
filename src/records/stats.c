/* stats.c - the counters behind memtrack_stats() and the report, and sequence numbers.
 *
 * Counting is per thread, so the hot path has no atomic read-modify-write and threads
 * never write a shared cache line (a shared atomic counter cost a third of a tracked
 * malloc+free pair, and kept two threads from running faster than one and a quarter).
 * Each thread that makes or releases a tracked block owns a slot: only the owner writes
 * it (relaxed loads and stores, which are plain moves), readers add the slots up. Slots
 * are never freed; a thread's slot is handed to the next new thread when it exits, with
 * its counts, so the sums stay right. The common case of each event is inline, in stats.h.
 *
 * Peaks need the sum at every moment:
 *   - while one thread at a time does the tracking (every single-threaded program), that
 *     thread's slot holds every live block and its peak is exact;
 *   - once two threads have held slots at once ("shared"), each thread adds its net
 *     change to shared totals every MT_PUBLISH_EVERY events (at once for a block of
 *     MT_PUBLISH_BYTES or more), and the peak is raised from those totals. A peak that
 *     lasts less than that many events per thread may be missed by that much.
 * Current, total, frees and failed are exact whenever they are read between calls.
 *
 * The timeline (timeline.c) is paced by each thread's own allocation and free counts (one
 * compare each, with the next count that may be due; while one thread tracks they are the
 * program's), and told of each new peak where it is found: every one while one thread
 * tracks, at publishes once shared.
 *
 * Blocks made inside system libraries (records/site.h, mt_site_system) are not the program's:
 * they are counted in each slot's system counters, without peaks, and take no sequence
 * number, so that every figure above and every #N is the program's own.
 *
 * Sequence numbers come from one shared counter in batches of SEQ_BATCH per thread:
 * unique, increasing within each thread, and increasing across the program while one
 * thread at a time allocates. With several threads, numbers of different threads'
 * batches interleave: #70 of one thread may be made after #130 of another. A checkpoint
 * (mt_seq_upcoming) that cannot vouch for every batch retires them all (the batch epoch),
 * so no block made after it gets a number below its mark.
 */
#include <string.h>

#include "base/roots.h"
#include "records/stats.h"
#include "records/timeline.h"
#include "records/table.h"

#define SEQ_BATCH 64u

/* A slot's owner-kept fields before its first event. */
#define NEW_SLOT .publish_countdown = MT_PUBLISH_EVERY, .alloc_sample_at = 1, .free_sample_at = 1

/* The first slot needs no allocation; the fallback serves threads that cannot get one. */
static mt_stat_slot_t first_slot = {NEW_SLOT}, fallback_slot = {NEW_SLOT, .crowded = true};

mt_stat_flags_t mt_stat_flags;
/* The shared sums below are written at every publish. */
static struct {
    _Alignas(64) mt_stat_slot_t *_Atomic slots; /* every slot ever made, newest first */
    atomic_uint in_use;                         /* slots held now */
    _Atomic int64_t bytes, blocks;              /* published sums (shared mode) */
    _Atomic uint64_t events;                    /* published allocations + frees (shared mode) */
    _Atomic uint64_t peak_bytes, peak_blocks;
    _Atomic uint64_t next_seq;
} counters = {.slots = &first_slot};
mt_stat_slot_t mt_stat_unowned = {.crowded = true};
MT_TLS mt_stat_slot_t *mt_stat_mine = &mt_stat_unowned;
static pthread_key_t slot_key;
static pthread_once_t slot_key_once = PTHREAD_ONCE_INIT;

/* ---- publishing ---------------------------------------------------------------------- */

/* Returns true when this call raised the peak to now. */
static bool raise_peak(_Atomic uint64_t *peak, int64_t now)
{
    uint64_t old = atomic_load_explicit(peak, memory_order_relaxed);
    while (now > 0 && (uint64_t)now > old) {
        if (atomic_compare_exchange_weak_explicit(peak, &old, (uint64_t)now, memory_order_relaxed,
                                                  memory_order_relaxed))
            return true;
    }
    return false;
}

/* Allocations and frees this slot has seen (the timeline's event count while solo). */
static uint64_t slot_events(mt_stat_slot_t *s)
{
    return atomic_load_explicit(&s->total_blocks, memory_order_relaxed) +
           atomic_load_explicit(&s->frees, memory_order_relaxed);
}

/* Live bytes made here minus those released here (signed, as slot_blocks). */
static int64_t slot_bytes(mt_stat_slot_t *s)
{
    return (int64_t)(atomic_load_explicit(&s->total_bytes, memory_order_relaxed) -
                     atomic_load_explicit(&s->freed_bytes, memory_order_relaxed));
}

/* Live blocks made here minus those released here (as a signed count, which a thread that
 * frees more than it makes takes below zero). */
static int64_t slot_blocks(mt_stat_slot_t *s)
{
    return (int64_t)(atomic_load_explicit(&s->total_blocks, memory_order_relaxed) -
                     atomic_load_explicit(&s->frees, memory_order_relaxed));
}

/* Adds the slot's change since its last publish to the shared totals. */
static void publish(mt_stat_slot_t *s)
{
    if (s->crowded)
        return; /* the fallback slot is counted when read */
    int64_t bytes = slot_bytes(s);
    int64_t blocks = slot_blocks(s);
    int64_t db = bytes - s->published_bytes, dk = blocks - s->published_blocks;
    s->published_bytes = bytes;
    s->published_blocks = blocks;
    uint64_t mine_events = slot_events(s), de = mine_events - s->published_events;
    s->published_events = mine_events;
    uint64_t events = atomic_fetch_add_explicit(&counters.events, de, memory_order_relaxed) + de;
    s->publish_countdown = MT_PUBLISH_EVERY;
    int64_t all_bytes = atomic_fetch_add_explicit(&counters.bytes, db, memory_order_relaxed) + db;
    int64_t all_blocks = atomic_fetch_add_explicit(&counters.blocks, dk, memory_order_relaxed) + dk;
    if (raise_peak(&counters.peak_bytes, all_bytes))
        mt_timeline_peak((uint64_t)all_bytes, all_blocks > 0 ? (uint64_t)all_blocks : 0, events);
    (void)raise_peak(&counters.peak_blocks, all_blocks);
}

/* ---- slots --------------------------------------------------------------------------- */

static void slot_release(void *arg)
{
    mt_stat_slot_t *s = arg;
    if (atomic_load_explicit(&mt_stat_flags.shared, memory_order_relaxed))
        publish(s);
    mt_stat_mine = &mt_stat_unowned;
    atomic_fetch_sub_explicit(&counters.in_use, 1, memory_order_relaxed);
    atomic_store_explicit(&s->in_use, false, memory_order_release);
}

static void slot_key_create(void)
{
    if (pthread_key_create(&slot_key, slot_release) != 0)
        slot_key = (pthread_key_t)-1;
}

static bool slot_claim(mt_stat_slot_t *s)
{
    bool expected = false;
    return atomic_compare_exchange_strong_explicit(&s->in_use, &expected, true,
                                                   memory_order_acquire, memory_order_relaxed);
}

/* Finds this thread a slot: a free one, or a new one. */
static MT_NOINLINE mt_stat_slot_t *slot_get_slow(void)
{
    mt_stat_slot_t *s = NULL;
    pthread_once(&slot_key_once, slot_key_create);
    if (slot_key == (pthread_key_t)-1)
        return &fallback_slot; /* no way to learn of the thread's exit */
    for (mt_stat_slot_t *t = atomic_load_explicit(&counters.slots, memory_order_acquire);
         s == NULL && t != NULL; t = t->next)
        if (slot_claim(t))
            s = t;
    if (s == NULL) {
        s = mt_libc_memalign(64, sizeof *s);
        if (s == NULL)
            return &fallback_slot;
        *s = (mt_stat_slot_t){NEW_SLOT, .in_use = true};
        s->next = atomic_load_explicit(&counters.slots, memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&counters.slots, &s->next, s,
                                                      memory_order_release, memory_order_relaxed)) {
        }
    }
    if (atomic_fetch_add_explicit(&counters.in_use, 1, memory_order_relaxed) >= 1)
        atomic_store_explicit(&mt_stat_flags.shared, true, memory_order_relaxed);
    (void)pthread_setspecific(slot_key, s);
    s->seq_thread_meta = mt_stat_thread_meta(); /* (the batch's fast path reads it) */
    mt_stat_mine = s;
    mt_roots_thread_seen(mt_thread()); /* a thread's first event: where its stack is */
    return s;
}

static inline mt_stat_slot_t *slot_get(void)
{
    mt_stat_slot_t *s = mt_stat_mine;
    return MT_LIKELY(s != &mt_stat_unowned) ? s : slot_get_slow();
}

/* ---- events -------------------------------------------------------------------------- */

/* The rarer rest of an allocation's event: a new peak while one thread tracks, a publish
 * once shared (its count of events taken already), then the timeline's sample when due. */
void mt_stats_alloc_more(mt_stat_slot_t *s, bool shared)
{
    if (!shared) {
        int64_t bytes = slot_bytes(s), blocks = slot_blocks(s);
        if (bytes > 0 &&
            (uint64_t)bytes > atomic_load_explicit(&s->solo_peak_bytes, memory_order_relaxed)) {
            atomic_store_explicit(&s->solo_peak_bytes, (uint64_t)bytes, memory_order_relaxed);
            mt_timeline_peak((uint64_t)bytes, blocks > 0 ? (uint64_t)blocks : 0, slot_events(s));
        }
        if (blocks > 0 &&
            (uint64_t)blocks > atomic_load_explicit(&s->solo_peak_blocks, memory_order_relaxed))
            atomic_store_explicit(&s->solo_peak_blocks, (uint64_t)blocks, memory_order_relaxed);
        if (!s->crowded) { /* (the crowded slot compares its peaks themselves) */
            s->peak_total_bytes = atomic_load_explicit(&s->solo_peak_bytes, memory_order_relaxed) +
                                  atomic_load_explicit(&s->freed_bytes, memory_order_relaxed);
            s->peak_total_blocks =
                atomic_load_explicit(&s->solo_peak_blocks, memory_order_relaxed) +
                atomic_load_explicit(&s->frees, memory_order_relaxed);
        }
    } else {
        publish(s);
    }
    mt_stat_sample_due(s->crowded, &s->total_blocks,
                       atomic_load_explicit(&s->total_blocks, memory_order_relaxed),
                       &s->alloc_sample_at);
}

/* The same for a free: a publish, then the timeline's sample when due. */
void mt_stats_free_more(mt_stat_slot_t *s)
{
    publish(s);
    mt_stat_sample_due(s->crowded, &s->frees, atomic_load_explicit(&s->frees, memory_order_relaxed),
                       &s->free_sample_at);
}

/* A count of an owned slot reached *sample_at: a sample if it is due, and the next count that
 * may be (a multiple of the spacing, which is the mask plus one, and only ever doubles). */
void mt_stats_sample(uint64_t count, uint64_t *sample_at)
{
    if ((count & atomic_load_explicit(&mt_timeline_mask, memory_order_relaxed)) == 0)
        mt_timeline_sample();
    *sample_at = (count | atomic_load_explicit(&mt_timeline_mask, memory_order_relaxed)) + 1;
}

/* A thread's first event, or one of a thread without a slot of its own. */
void mt_stats_alloc_slow(size_t size)
{
    mt_stat_slot_t *s = slot_get();
    if (!s->crowded)
        mt_stat_alloc_event(s, size, false);
    else
        mt_stat_alloc_event(s, size, true);
}

void mt_stats_free_slow(size_t size)
{
    mt_stat_slot_t *s = slot_get();
    if (!s->crowded)
        mt_stat_free_event(s, size, false);
    else
        mt_stat_free_event(s, size, true);
}

/* Several blocks released at one call (an arena's reset): the same counts as as many frees,
 * in one event. A batch's frees raise no peak, so the peaks stay exact; the timeline takes
 * one sample when the batch passes a count that is due one. */
void mt_stats_free_many(uint64_t bytes, uint64_t blocks)
{
    if (blocks == 0)
        return;
    mt_stat_slot_t *s = slot_get();
    bool crowded = s->crowded;
    mt_stat_add(crowded, &s->freed_bytes, bytes);
    uint64_t frees = mt_stat_add(crowded, &s->frees, blocks);
    uint64_t mask = atomic_load_explicit(&mt_timeline_mask, memory_order_relaxed);
    bool passed = ((frees - blocks) | mask) < frees; /* a multiple of the spacing in the batch */
    if (atomic_load_explicit(&mt_stat_flags.shared, memory_order_relaxed)) {
        publish(s);
    } else if (!crowded) {
        s->peak_total_bytes += bytes;
        s->peak_total_blocks += blocks;
    }
    if (crowded) {
        if (passed)
            mt_timeline_sample();
    } else if (frees >= s->free_sample_at) {
        if (passed)
            mt_timeline_sample();
        s->free_sample_at = (frees | mask) + 1;
    }
}

void mt_stats_failed(void)
{
    mt_stat_slot_t *s = slot_get();
    if (s->crowded)
        mt_stat_add(true, &s->failed, 1);
    else
        mt_stat_add(false, &s->failed, 1);
}

void mt_stats_system_alloc(size_t size)
{
    mt_stat_slot_t *s = slot_get();
    mt_stat_add(s->crowded, &s->system_bytes, size);
    mt_stat_add(s->crowded, &s->system_blocks, 1);
}

void mt_stats_system_free(size_t size)
{
    mt_stat_slot_t *s = slot_get();
    mt_stat_add(s->crowded, &s->system_freed_bytes, size);
    mt_stat_add(s->crowded, &s->system_frees, 1);
}

uint64_t mt_stat_thread_meta(void)
{
    return MT_META_MAKE(0, mt_thread(), 0);
}

uint64_t mt_next_seq_slow(void)
{
    mt_stat_slot_t *s = slot_get();
    if (MT_UNLIKELY(s->crowded))
        return atomic_fetch_add_explicit(&counters.next_seq, 1, memory_order_relaxed) + 1;
    uint64_t epoch = atomic_load_explicit(&mt_stat_flags.seq_epoch, memory_order_relaxed);
    if (s->seq_next == s->seq_end || s->seq_epoch != epoch) {
        s->seq_next =
            atomic_fetch_add_explicit(&counters.next_seq, SEQ_BATCH, memory_order_relaxed) + 1;
        s->seq_end = s->seq_next + SEQ_BATCH;
        s->seq_epoch = epoch;
    }
    return s->seq_next++;
}

uint64_t mt_seq_upcoming(void)
{
    mt_stat_slot_t *s = mt_stat_mine;
    if (s != &mt_stat_unowned && !atomic_load(&mt_stat_flags.shared)) {
        /* This thread's batch is the only one: its next number is the program's. */
        if (s->seq_next != s->seq_end && s->seq_epoch == atomic_load(&mt_stat_flags.seq_epoch))
            return s->seq_next;
        return atomic_load(&counters.next_seq) + 1;
    }
    /* Other threads may hold batches of lower numbers: retire them all first. */
    atomic_fetch_add(&mt_stat_flags.seq_epoch, 1);
    return atomic_load(&counters.next_seq) + 1;
}

/* ---- reading ------------------------------------------------------------------------- */

static size_t clamp(int64_t v)
{
    return v < 0 ? 0 : (size_t)v;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static void add_slot(memtrack_stats_t *out, int64_t *bytes, int64_t *blocks, uint64_t *peak_bytes,
                     uint64_t *peak_blocks, mt_stat_slot_t *s)
{
    *bytes += slot_bytes(s);
    *blocks += slot_blocks(s);
    out->total_bytes += (size_t)atomic_load_explicit(&s->total_bytes, memory_order_relaxed);
    out->total_blocks += (size_t)atomic_load_explicit(&s->total_blocks, memory_order_relaxed);
    out->frees += (size_t)atomic_load_explicit(&s->frees, memory_order_relaxed);
    out->failed += (size_t)atomic_load_explicit(&s->failed, memory_order_relaxed);
    *peak_bytes =
        max_u64(*peak_bytes, atomic_load_explicit(&s->solo_peak_bytes, memory_order_relaxed));
    *peak_blocks =
        max_u64(*peak_blocks, atomic_load_explicit(&s->solo_peak_blocks, memory_order_relaxed));
}

void mt_stats_read(memtrack_stats_t *out)
{
    int64_t bytes = 0, blocks = 0;
    uint64_t peak_bytes = atomic_load(&counters.peak_bytes);
    uint64_t peak_blocks = atomic_load(&counters.peak_blocks);
    out->total_bytes = out->total_blocks = out->frees = out->failed = 0;
    for (mt_stat_slot_t *s = atomic_load_explicit(&counters.slots, memory_order_acquire); s != NULL;
         s = s->next)
        add_slot(out, &bytes, &blocks, &peak_bytes, &peak_blocks, s);
    add_slot(out, &bytes, &blocks, &peak_bytes, &peak_blocks, &fallback_slot);
    /* exact between calls while one thread tracks: never below zero */
    MT_ASSERT(atomic_load(&mt_stat_flags.shared) || (bytes >= 0 && blocks >= 0));
    out->current_bytes = clamp(bytes);
    out->current_blocks = clamp(blocks);
    /* The peak is never below what is live now. */
    out->peak_bytes = (size_t)max_u64(peak_bytes, out->current_bytes);
    out->peak_blocks = (size_t)max_u64(peak_blocks, out->current_blocks);
    out->errors = 0; /* the error module counts errors: see memtrack_stats() */
}

unsigned mt_stats_other_threads(void)
{
    unsigned held = atomic_load_explicit(&counters.in_use, memory_order_relaxed);
    unsigned own = mt_stat_mine != &mt_stat_unowned ? 1u : 0u;
    return held > own ? held - own : 0;
}

static void add_system(mt_system_counts_t *out, mt_stat_slot_t *s)
{
    out->total_bytes += atomic_load_explicit(&s->system_bytes, memory_order_relaxed);
    out->total_blocks += atomic_load_explicit(&s->system_blocks, memory_order_relaxed);
    out->freed_bytes += atomic_load_explicit(&s->system_freed_bytes, memory_order_relaxed);
    out->frees += atomic_load_explicit(&s->system_frees, memory_order_relaxed);
}

void mt_stats_system_read(mt_system_counts_t *out)
{
    memset(out, 0, sizeof *out);
    for (mt_stat_slot_t *s = atomic_load_explicit(&counters.slots, memory_order_acquire); s != NULL;
         s = s->next)
        add_system(out, s);
    add_system(out, &fallback_slot);
}
