/* fail.c - allocations made to fail on purpose (options fail_*): the call returns NULL with
 * errno ENOMEM as the C library's would (new throws std::bad_alloc, a pool or an arena
 * returns NULL as when full), so that a program's error paths run, and the report lists
 * every failure with the site and stack of the call that got NULL.
 *
 * Which allocations count: the program's own tracked ones (malloc and its family, realloc,
 * new, tracked pools and arenas), not those the C runtime makes for itself (the C library's
 * stdio buffers, the loader's, the exception new throws): a site known only by address in
 * the C library, the loader, the C++ runtime or libmemtrack is neither counted nor failed
 * (records/place.c, mt_place_in_runtime). The count is this module's own, one for the
 * process, numbered from 1 in the order allocations are asked for: sequence numbers count
 * other blocks too, and threads take them in batches.
 *
 * Filters narrow what is counted: fail_site (the place), fail_fn (a function in the
 * stack), fail_owner (a pool's or arena's name), fail_window (only between
 * memtrack_fail_begin() and memtrack_fail_end()). Among the counted, fail_nth, fail_from
 * and fail_rate pick the ones that fail; with a filter and none of the three, every
 * counted allocation fails; fail_count counts and fails none (memtrack run --fail-sweep's
 * first run). A site's verdict is worked out once (symbolized, for fail_fn, under mt_busy
 * as the page guards' sites are) and kept by its id.
 *
 * Nothing here runs while no fail_ option is set: the choice is made on the allocation's
 * slow branch (api/alloc.c), to which the page guards' countdown sends every allocation
 * once mt_fail_freeze has asked for it.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/fail.h"
#include "base/options.h"
#include "base/output.h"
#include "base/symbolize.h"
#include "base/unwind.h"
#include "checks/page_guard.h"
#include "errors/format.h"
#include "records/place.h"
#include "records/site.h"
#include "records/stack.h"

bool mt_fail_armed;

#define VERDICTS MT_SMALL((size_t)1 << 16, (size_t)64) /* sites whose verdict is kept */
enum { VERDICT_UNKNOWN, VERDICT_SKIPPED, VERDICT_COUNTED };

static struct {
    bool frozen, stood_aside, picks, filters;
    uint64_t seed;
    _Atomic unsigned char *verdicts; /* by site id, VERDICTS of them */
    _Atomic uint64_t counted, failed, windows, in_window, logged;
    atomic_int window_depth;
} fail;

/* The first failures, in order; an entry is claimed by a fetch-add of fail.logged. */
typedef struct fail_slot {
    uint64_t nth;
    size_t size;
    _Atomic uint32_t site_plus_one; /* written last: 0 while the entry is being filled */
} fail_slot_t;
static fail_slot_t fail_log[MT_FAIL_LOG_MAX] MT_COLD;

void mt_fail_stand_aside(void)
{
    fail.stood_aside = true;
}

void mt_fail_freeze(void)
{
    if (fail.frozen)
        return;
    fail.frozen = true;
    fail.picks = mt_opt.fail_nth != 0 || mt_opt.fail_from != 0 || mt_opt.fail_rate != 0;
    fail.filters = mt_opt.fail_site[0] != '\0' || mt_opt.fail_fn[0] != '\0' ||
                   mt_opt.fail_owner[0] != '\0' || mt_opt.fail_window;
    if (fail.stood_aside || !(fail.picks || fail.filters || mt_opt.fail_count))
        return;
    if (mt_opt.fail_rate != 0) {
        fail.seed = mt_opt.fail_seed;
        if (fail.seed == 0) { /* a new one each run, said in the report to run it again */
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            fail.seed = ((uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30) ^ (uint64_t)getpid()) %
                            UINT64_C(1000000000) +
                        1;
        }
    }
    fail.verdicts = mt_pages_alloc(VERDICTS);
    mt_page_guard_every_call();
    mt_fail_armed = true;
}

/* ---- which sites count ------------------------------------------------------------------ */

/* Is name matched by one of the space-separated globs of list? */
static bool glob_listed(const char *list, const char *name)
{
    char glob[MT_OPTION_STRING_MAX];
    for (const char *e = list; name != NULL && *e != '\0';) {
        size_t n = strcspn(e, " ");
        if (n > 0 && n < sizeof glob) {
            memcpy(glob, e, n);
            glob[n] = '\0';
            if (fnmatch(glob, name, 0) == 0)
                return true;
        }
        e += n;
        e += *e == ' ';
    }
    return false;
}

/* Option fail_fn: the place's function or one of its callers', inlined ones included. */
static bool function_listed(uint32_t site, mt_place_t *p)
{
    if (glob_listed(mt_opt.fail_fn, p->func))
        return true;
    size_t depth = mt_opt.stack < MT_STACK_MAX ? mt_opt.stack : MT_STACK_MAX;
    mt_frame_t frames[MT_STACK_ROOM(depth) + 1]; /* (sized by the option: 1.4 KiB by default) */
    size_t n = mt_place_stack(site, p, frames, MT_STACK_ROOM(depth), NULL, NULL);
    for (size_t i = 0; i < n; i++)
        if (glob_listed(mt_opt.fail_fn, frames[i].func))
            return true;
    return false;
}

static bool site_counted_now(uint32_t site)
{
    if (site == MT_SITE_NONE || mt_place_in_runtime(site))
        return false;
    const mt_site_t *s = mt_site_get(site);
    if (mt_opt.fail_owner[0] != '\0' && !glob_listed(mt_opt.fail_owner, s->owner))
        return false;
    if (mt_opt.fail_site[0] == '\0' && mt_opt.fail_fn[0] == '\0')
        return true;
    mt_place_t p;
    mt_busy++; /* a site known by address is symbolized: libdw allocates */
    (void)mt_place_of(site, &p);
    bool counted =
        (mt_opt.fail_site[0] == '\0' || mt_place_listed(mt_opt.fail_site, p.file, p.line)) &&
        (mt_opt.fail_fn[0] == '\0' || function_listed(site, &p));
    mt_busy--;
    return counted;
}

static bool site_counted(uint32_t site)
{
    if (fail.verdicts == NULL || site >= VERDICTS)
        return site_counted_now(site);
    unsigned char v = atomic_load_explicit(&fail.verdicts[site], memory_order_relaxed);
    if (v == VERDICT_UNKNOWN) {
        v = site_counted_now(site) ? VERDICT_COUNTED : VERDICT_SKIPPED;
        atomic_store_explicit(&fail.verdicts[site], v, memory_order_relaxed);
    }
    return v == VERDICT_COUNTED;
}

/* ---- which of the counted fail -------------------------------------------------------- */

/* fail_rate: one in N, by a hash of the seed and the allocation's number, so the same seed
 * fails the same allocations in every run, whichever thread makes them. */
static bool rate_picks(uint64_t nth)
{
    uint64_t z = fail.seed + nth * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return z % mt_opt.fail_rate == 0;
}

static bool picked(uint64_t nth)
{
    if (mt_opt.fail_count)
        return false;
    if (!fail.picks)
        return true; /* a filter alone: every allocation it counts */
    return nth == mt_opt.fail_nth || (mt_opt.fail_from != 0 && nth >= mt_opt.fail_from) ||
           (mt_opt.fail_rate != 0 && rate_picks(nth));
}

static void log_failure(uint64_t nth, uint32_t site, size_t size)
{
    uint64_t i = atomic_fetch_add_explicit(&fail.logged, 1, memory_order_relaxed);
    if (i >= MT_FAIL_LOG_MAX)
        return;
    fail_log[i].nth = nth;
    fail_log[i].size = size;
    atomic_store_explicit(&fail_log[i].site_plus_one, site + 1, memory_order_release);
}

/* fail_nth=N: the allocation named by number is said when it fails, with its stack, so
 * that a run that crashes afterwards (and writes no exit report) still tells which call got
 * NULL: memtrack run --fail-sweep reads it there. As break_on's line (api/alloc.c). A
 * stack that was not symbolized (symbolize=0, as the sweep's runs are) is said by its
 * return addresses, which tell it apart as well. */
static MT_NOINLINE void say_nth(uint64_t nth, uint32_t site, size_t size)
{
    size_t depth = mt_opt.stack < MT_STACK_MAX ? mt_opt.stack : MT_STACK_MAX;
    mt_frame_t frames[MT_STACK_ROOM(depth) + 1];
    mt_place_t p;
    mt_busy++; /* symbolized: libdw allocates */
    (void)mt_place_of(site, &p);
    (void)mt_place_stack(site, &p, frames, MT_STACK_ROOM(depth), NULL, NULL);
    mt_buf_t b;
    mt_buf_init(&b, mt_out_fd());
    mt_buf_line(&b);
    mt_buf_fmt(&b, "fail_nth=%" PRIu64 ": %s of ", nth, mt_kind_names[mt_site_get(site)->kind]);
    mt_buf_count(&b, size, "byte", "bytes");
    mt_buf_str(&b, " at ");
    mt_buf_place(&b, &p);
    mt_buf_str(&b, " returns NULL, on purpose\n");
    mt_buf_stack_lines(&b, &p, "      ");
    void *const *pcs;
    unsigned n = !mt_opt.symbolize ? mt_stack_get(mt_site_get(site)->stack, &pcs) : 0;
    for (unsigned i = 0; i < n; i++) { /* symbolize=0: the return addresses themselves */
        mt_buf_line(&b);
        mt_buf_fmt(&b, "      from 0x%" PRIx64 "\n", (uint64_t)(uintptr_t)pcs[i]);
    }
    mt_out_lock();
    mt_buf_flush(&b);
    mt_out_unlock();
    mt_busy--;
}

static bool fail_now(uint32_t site, size_t size)
{
    if (!site_counted(site))
        return false;
    bool inside = atomic_load_explicit(&fail.window_depth, memory_order_relaxed) > 0;
    if (mt_opt.fail_window && !inside)
        return false;
    if (inside)
        atomic_fetch_add_explicit(&fail.in_window, 1, memory_order_relaxed);
    uint64_t nth = atomic_fetch_add_explicit(&fail.counted, 1, memory_order_relaxed) + 1;
    if (!picked(nth))
        return false;
    atomic_fetch_add_explicit(&fail.failed, 1, memory_order_relaxed);
    log_failure(nth, site, size);
    if (nth == mt_opt.fail_nth)
        say_nth(nth, site, size);
    return true;
}

bool mt_fail_now(uint32_t site, size_t size)
{
    int saved = errno; /* the symbolizer's calls may set it: the program's stays as it was */
    bool fail_it = fail_now(site, size);
    errno = saved;
    return fail_it;
}

bool mt_fail_owned(uint32_t site, size_t size)
{
    return mt_fail_armed && mt_fail_now(site, size);
}

/* ---- the window the program marks --------------------------------------------------------- */

MT_EXPORT void memtrack_fail_begin(void)
{
    MT_ENTRY();
    atomic_fetch_add(&fail.windows, 1);
    atomic_fetch_add(&fail.window_depth, 1);
}

MT_EXPORT void memtrack_fail_end(void)
{
    MT_ENTRY();
    int depth = atomic_load(&fail.window_depth);
    while (depth > 0 && !atomic_compare_exchange_weak(&fail.window_depth, &depth, depth - 1))
        ;
}

/* ---- for the report ------------------------------------------------------------------------- */

void mt_fail_counts(mt_fail_counts_t *out)
{
    mt_fail_freeze(); /* (a process that made no block has not frozen the options yet) */
    out->armed = mt_fail_armed;
    out->counted = atomic_load(&fail.counted);
    out->failed = atomic_load(&fail.failed);
    out->windows = atomic_load(&fail.windows);
    out->in_window = atomic_load(&fail.in_window);
    out->seed = fail.seed;
}

size_t mt_fail_log_read(mt_fail_entry_t *out, size_t max)
{
    uint64_t logged = atomic_load(&fail.logged);
    size_t n = 0;
    for (uint64_t i = 0; i < logged && i < MT_FAIL_LOG_MAX && n < max; i++) {
        uint32_t site = atomic_load_explicit(&fail_log[i].site_plus_one, memory_order_acquire);
        if (site == 0)
            continue; /* a thread is filling it in now */
        out[n].nth = fail_log[i].nth;
        out[n].size = fail_log[i].size;
        out[n].site = site - 1;
        n++;
    }
    return n;
}
