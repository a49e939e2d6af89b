/* leaks.h - the leaks of a report, grouped by site, class and holder (leaks.c).
 */
#ifndef MT_LEAKS_H
#define MT_LEAKS_H

#include "report/model.h"
#include "report/scratch.h"

/* Fills r->sites with the live blocks made at or after sequence number `since`: by site
 * alone (by_id, nids entries, one per site), or when r->when asks for leaks and some are to
 * be listed, by the leak scan's classes and holders too (r->groups then holds them; r->
 * lost_only keeps lost and indirectly lost blocks only; no scan once r->shortage says
 * blocks went untracked). *live gets the program's blocks the walk found live (bytes,
 * blocks): a system library's are not counted. */
void mt_report_build_leaks(mt_report_t *r, mt_leak_site_t *by_id, uint32_t nids, uint64_t since,
                           frame_pool_t *pool, uint64_t live[2]);

#endif /* MT_LEAKS_H */
