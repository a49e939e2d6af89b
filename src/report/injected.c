/* injected.c - the report's list of allocations made to fail on purpose (options fail_*,
 * api/fail.c): the failures logged, grouped by the call that got NULL (its place and stack;
 * sites that print the same are one), in the order of their first failure, with the numbers
 * that fail_nth fails again.
 */
#include "api/fail.h"
#include "records/site.h"
#include "report/injected.h"

#define NTHS_MAX (sizeof(((mt_injected_site_t *)0)->nths) / sizeof(uint64_t))

size_t mt_report_injected_failures(void)
{
    mt_fail_counts_t c;
    mt_fail_counts(&c);
    return c.armed ? MT_FAIL_LOG_MAX : 0;
}

size_t mt_report_injected_room(void)
{
    return mt_report_injected_failures() *
           (sizeof(mt_fail_entry_t) + sizeof(mt_injected_site_t) + sizeof(uint32_t) + 32);
}

/* The log's numbers come in the order the failures happened, so ascending within a site
 * but for threads racing: kept sorted. */
static void add_nth(mt_injected_site_t *g, uint64_t nth)
{
    unsigned i = g->nnths;
    if (i == NTHS_MAX) {
        if (nth >= g->nths[i - 1])
            return;
        i--;
    } else {
        g->nnths++;
    }
    while (i > 0 && g->nths[i - 1] > nth) {
        g->nths[i] = g->nths[i - 1];
        i--;
    }
    g->nths[i] = nth;
}

void mt_report_build_injected(mt_report_t *r, scratch_t *s, frame_pool_t *pool)
{
    mt_fail_counts_t c;
    mt_fail_counts(&c);
    mt_injected_t *in = &r->injected;
    in->armed = c.armed;
    if (!c.armed)
        return;
    in->counted = c.counted;
    in->failed = c.failed;
    in->windows = c.windows;
    in->in_windows = c.in_window;
    in->seed = c.seed;
    size_t max = MT_FAIL_LOG_MAX;
    mt_fail_entry_t *log = take(s, max * sizeof *log);
    in->sites = take(s, max * sizeof *in->sites);
    uint32_t *ids = take(s, max * sizeof *ids); /* a group's site id */
    if (log == NULL || in->sites == NULL || ids == NULL)
        return;
    size_t n = mt_fail_log_read(log, max), groups = 0;
    for (size_t i = 0; i < n; i++) {
        size_t g = 0;
        while (g < groups && ids[g] != log[i].site && !mt_site_same(ids[g], log[i].site))
            g++;
        if (g == groups) {
            ids[groups++] = log[i].site;
            memset(&in->sites[g], 0, sizeof in->sites[g]);
        }
        in->sites[g].failures++;
        in->sites[g].bytes += log[i].size;
        add_nth(&in->sites[g], log[i].nth);
    }
    for (size_t g = 0; g < groups; g++) {
        (void)mt_place_of(ids[g], &in->sites[g].where);
        resolve_stack(r, pool, ids[g], &in->sites[g].where);
    }
    in->nsites = groups;
}
