/* timeline.c - live bytes and blocks over the run, for the report's plot.
 *
 * Sampling must cost almost nothing on the allocation path. The counters in stats.c
 * already count allocations and frees; a sample is taken when such a count is a multiple
 * of the spacing (`(n & mt_timeline_mask) == 0`; stats.c keeps the next such count, so an
 * event makes one compare), and when live bytes reach a new peak 1/8 above the last peak
 * sampled. Samples go to a fixed buffer; when it is full every other sample is dropped and
 * the spacing doubles, so any run ends with between half and all of MT_TIMELINE_MAX
 * samples spread evenly over it. The highest point is kept apart, exactly: the plot marks
 * the true peak even between samples.
 *
 * A sample is taken under a mutex tried, never waited for: a thread that finds it taken
 * skips its sample.
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "base/lock.h"
#include "base/options.h"
#include "records/stats.h"
#include "records/timeline.h"

_Atomic uint64_t mt_timeline_mask;

/* The samples come last: a short process touches the head and the first sample, one page. */
static struct {
    pthread_mutex_t lock;
    size_t count;
    uint64_t start_ns;
    _Atomic uint64_t next_peak_sample; /* live bytes that earn a sample at a new peak */
    _Atomic uint64_t peak_bytes, peak_blocks, peak_event;
    mt_sample_t samples[MT_TIMELINE_MAX];
} timeline MT_COLD = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fills s with the counters now. */
static void read_sample(mt_sample_t *s, uint64_t start_ns)
{
    memtrack_stats_t st;
    mt_stats_read(&st);
    s->event = (uint64_t)st.total_blocks + (uint64_t)st.frees;
    s->bytes = st.current_bytes;
    s->blocks = st.current_blocks;
    s->usec = (now_ns() - start_ns) / 1000u;
}

/* Keeps every other sample (the first always) and doubles the spacing. */
static void decimate_locked(void)
{
    size_t kept = 0;
    for (size_t i = 0; i < timeline.count; i += 2)
        timeline.samples[kept++] = timeline.samples[i];
    timeline.count = kept;
    uint64_t mask = atomic_load_explicit(&mt_timeline_mask, memory_order_relaxed);
    atomic_store_explicit(&mt_timeline_mask, mask * 2 + 1, memory_order_relaxed);
}

void mt_timeline_sample(void)
{
    if (MT_UNLIKELY(!mt_opt.timeline)) {
        atomic_store_explicit(&mt_timeline_mask, UINT64_MAX, memory_order_relaxed);
        return;
    }
    if (mt_mutex_trylock(&timeline.lock) != 0)
        return;
    if (timeline.start_ns == 0)
        timeline.start_ns = now_ns();
    mt_sample_t s;
    read_sample(&s, timeline.start_ns);
    /* Two threads may sample the same event: keep one. */
    if (timeline.count == 0 || timeline.samples[timeline.count - 1].event < s.event) {
        if (timeline.count == MT_TIMELINE_MAX)
            decimate_locked();
        timeline.samples[timeline.count++] = s;
    }
    mt_mutex_unlock(&timeline.lock);
}

void mt_timeline_peak(uint64_t bytes, uint64_t blocks, uint64_t event)
{
    /* Racing threads may store their peaks in either order; the larger one stays. */
    if (bytes > atomic_load_explicit(&timeline.peak_bytes, memory_order_relaxed)) {
        atomic_store_explicit(&timeline.peak_bytes, bytes, memory_order_relaxed);
        atomic_store_explicit(&timeline.peak_blocks, blocks, memory_order_relaxed);
        atomic_store_explicit(&timeline.peak_event, event, memory_order_relaxed);
    }
    if (bytes >= atomic_load_explicit(&timeline.next_peak_sample, memory_order_relaxed)) {
        atomic_store_explicit(&timeline.next_peak_sample, bytes + bytes / 8 + 1,
                              memory_order_relaxed);
        mt_timeline_sample();
    }
}

void mt_timeline_peak_read(mt_sample_t *peak)
{
    memset(peak, 0, sizeof *peak);
    peak->bytes = atomic_load_explicit(&timeline.peak_bytes, memory_order_relaxed);
    peak->blocks = atomic_load_explicit(&timeline.peak_blocks, memory_order_relaxed);
    peak->event = atomic_load_explicit(&timeline.peak_event, memory_order_relaxed);
}

size_t mt_timeline_copy(mt_sample_t *out, size_t max, mt_sample_t *peak)
{
    size_t n = 0;
    memset(peak, 0, sizeof *peak);
    if (mt_in_crash) { /* the crash report: the lock is only tried */
        if (mt_mutex_trylock(&timeline.lock) != 0)
            return 0;
    } else {
        mt_mutex_lock(&timeline.lock);
    }
    n = timeline.count < max ? timeline.count : max;
    memcpy(out, timeline.samples, n * sizeof *out);
    /* The run so far ends where the counters stand now. */
    if (mt_opt.timeline && n < max) {
        mt_sample_t last;
        if (timeline.start_ns == 0)
            timeline.start_ns = now_ns();
        read_sample(&last, timeline.start_ns);
        if (n == 0 || out[n - 1].event < last.event)
            out[n++] = last;
    }
    mt_mutex_unlock(&timeline.lock);
    mt_timeline_peak_read(peak);
    /* The peak's time lies between the samples around it: take the later one's. */
    for (size_t i = 0; i < n; i++) {
        if (out[i].event >= peak->event) {
            peak->usec = out[i].usec;
            break;
        }
    }
    return n;
}

void mt_timeline_lock(void)
{
    mt_mutex_lock(&timeline.lock);
}

void mt_timeline_unlock(void)
{
    mt_mutex_unlock(&timeline.lock);
}
