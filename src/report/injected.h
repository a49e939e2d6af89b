/* injected.h - the report's list of allocations made to fail on purpose (injected.c).
 */
#ifndef MT_REPORT_INJECTED_H
#define MT_REPORT_INJECTED_H

#include "report/model.h"
#include "report/scratch.h"

/* The failures a report may list, and the bytes of working memory they take (0 when no
 * fail_ option was set). */
size_t mt_report_injected_failures(void);
size_t mt_report_injected_room(void);
/* Fills r->injected from api/fail.c's counts and log: failures grouped by the place that got
 * NULL, stacks from pool. */
void mt_report_build_injected(mt_report_t *r, scratch_t *s, frame_pool_t *pool);

#endif /* MT_REPORT_INJECTED_H */
