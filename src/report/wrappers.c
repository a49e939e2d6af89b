/* wrappers.c - the allocation wrappers a report's places were seen through, named.
 *
 * A leak or an error made inside an allocation wrapper is shown at the first caller outside
 * every wrapper (records/place.c, by records/wrapper.c's rule or option alloc_fn): the
 * report says which functions it saw through, once each, so that a reader who expected the
 * wrapper's own line knows where it went, and how to keep it (wrappers=0).
 */
#define _GNU_SOURCE
#include <string.h>

#include "records/wrapper.h"
#include "report/wrappers.h"

static bool same_str(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

void mt_wrappers_note(void *ctx, const mt_place_t *p, int why)
{
    mt_report_t *r = ctx;
    if (why == MT_THROUGH_SYSTEM || r == NULL || r->wrappers == NULL)
        return;
    for (size_t i = 0; i < r->nwrappers; i++)
        if (same_str(r->wrappers[i].fn.func, p->func))
            return;
    if (r->nwrappers == MT_WRAPPERS_MAX)
        return;
    mt_wrapper_t *w = &r->wrappers[r->nwrappers++];
    memset(w, 0, sizeof *w);
    w->fn.func = p->func;
    w->fn.file = p->file;
    w->fn.line = p->line;
    w->fn.module = p->file == NULL ? p->module : NULL;
    w->fn.pc = p->pc;
    w->detected = why == MT_THROUGH_RULE;
}
