/* stats.c - the counters behind memtrack_stats() and the report, and sequence numbers.
 *
 * The counters are relaxed atomics; a peak is raised with a compare-and-swap only when
 * the current value passes it. The allocation and free counts also pace the timeline's
 * samples (timeline.c): one mask test each.
 */
#include "internal.h"

static struct {
    _Atomic int64_t current_bytes, current_blocks;
    _Atomic uint64_t peak_bytes, peak_blocks;
    _Atomic uint64_t total_bytes, total_blocks, frees, failed;
    _Atomic uint64_t next_seq;
} counters;

/* Returns true when this call raised the peak to now. */
static bool raise_peak(_Atomic uint64_t *peak, int64_t now)
{
    uint64_t old = atomic_load_explicit(peak, memory_order_relaxed);
    while (now > 0 && (uint64_t)now > old) {
        if (atomic_compare_exchange_weak_explicit(peak, &old, (uint64_t)now,
                                                  memory_order_relaxed, memory_order_relaxed))
            return true;
    }
    return false;
}

static bool timeline_due(uint64_t count)
{
    return MT_UNLIKELY((count & atomic_load_explicit(&mt_timeline_mask,
                                                     memory_order_relaxed)) == 0);
}

void mt_stats_alloc(size_t size)
{
    int64_t bytes = atomic_fetch_add_explicit(&counters.current_bytes, (int64_t)size,
                                              memory_order_relaxed) + (int64_t)size;
    int64_t blocks = atomic_fetch_add_explicit(&counters.current_blocks, 1,
                                               memory_order_relaxed) + 1;
    atomic_fetch_add_explicit(&counters.total_bytes, size, memory_order_relaxed);
    uint64_t n = atomic_fetch_add_explicit(&counters.total_blocks, 1, memory_order_relaxed) + 1;
    if ((uint64_t)bytes > atomic_load_explicit(&counters.peak_bytes, memory_order_relaxed) &&
        raise_peak(&counters.peak_bytes, bytes))
        mt_timeline_peak((uint64_t)bytes, (uint64_t)blocks,
                         n + atomic_load_explicit(&counters.frees, memory_order_relaxed));
    if ((uint64_t)blocks > atomic_load_explicit(&counters.peak_blocks, memory_order_relaxed))
        (void)raise_peak(&counters.peak_blocks, blocks);
    if (timeline_due(n))
        mt_timeline_sample();
}

void mt_stats_free(size_t size)
{
    atomic_fetch_sub_explicit(&counters.current_bytes, (int64_t)size, memory_order_relaxed);
    atomic_fetch_sub_explicit(&counters.current_blocks, 1, memory_order_relaxed);
    uint64_t n = atomic_fetch_add_explicit(&counters.frees, 1, memory_order_relaxed) + 1;
    if (timeline_due(n))
        mt_timeline_sample();
}

void mt_stats_failed(void)
{
    atomic_fetch_add_explicit(&counters.failed, 1, memory_order_relaxed);
}

uint64_t mt_next_seq(void)
{
    return atomic_fetch_add_explicit(&counters.next_seq, 1, memory_order_relaxed) + 1;
}

uint64_t mt_seq_upcoming(void)
{
    return atomic_load_explicit(&counters.next_seq, memory_order_relaxed) + 1;
}

static size_t clamp(int64_t v)
{
    return v < 0 ? 0 : (size_t)v;
}

void mt_stats_read(memtrack_stats_t *out)
{
    out->current_bytes = clamp(atomic_load(&counters.current_bytes));
    out->current_blocks = clamp(atomic_load(&counters.current_blocks));
    out->peak_bytes = (size_t)atomic_load(&counters.peak_bytes);
    out->peak_blocks = (size_t)atomic_load(&counters.peak_blocks);
    out->total_bytes = (size_t)atomic_load(&counters.total_bytes);
    out->total_blocks = (size_t)atomic_load(&counters.total_blocks);
    out->frees = (size_t)atomic_load(&counters.frees);
    out->failed = (size_t)atomic_load(&counters.failed);
    out->errors = mt_error_total();
}

MT_EXPORT void memtrack_stats(memtrack_stats_t *out)
{
    if (out != NULL)
        mt_stats_read(out);
}
