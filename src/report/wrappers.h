/* wrappers.h - leaks made inside allocation wrappers, shown at the wrappers' callers.
 */
#ifndef MT_WRAPPERS_H
#define MT_WRAPPERS_H

#include "report/model.h"

/* Wrappers the report names: finding one takes stacks, which bare metal has none of. */
#ifdef MT_BARE_METAL
#define MT_WRAPPERS_MAX 4u
#else
#define MT_WRAPPERS_MAX 32u
#endif

/* Moves the place of each leak site made inside an allocation wrapper to the wrapper's
 * caller (the first frame of its stack outside every wrapper): functions option alloc_fn
 * names, and, with option wrappers, those the rule finds (wrappers.c). Names each wrapper
 * in r->wrappers (room for MT_WRAPPERS_MAX given there). Sites must have their stacks. */
void mt_wrappers_apply(mt_report_t *r, mt_leak_site_t *sites, size_t n);

/* True when name matches a pattern of option alloc_fn ('*' matches any run of characters). */
bool mt_alloc_fn_matches(const char *name);

#endif /* MT_WRAPPERS_H */
