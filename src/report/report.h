/* report.h - builds the report model (model.h) and writes the reports.
 */
#ifndef MT_REPORT_H
#define MT_REPORT_H

#include "base/platform.h"
#include "report/model.h"

/* Builds the model of the live blocks allocated at or after sequence number `since`
 * (1: all), the error log, the timeline and the options. Never allocates through the
 * tracker: the arrays live in one mapping, released by mt_report_free. */
bool mt_report_build(mt_report_t *r, mt_when_t when, uint64_t since);
void mt_report_free(mt_report_t *r);
/* Once r's statistics and timeline are in: a peak the counters reached only now (the walk
 * of the table, or their reading, went above the last peak recorded) gets now's blocks. */
void mt_report_peak_now(mt_report_t *r);
/* Whether the tracker's own memory ran out, and what it wants (all 0 where it has no
 * fixed budget: only bare metal's static buffer has one). */
void mt_report_shortage(mt_shortage_t *out);
/* The exit report, once; flush: the program's stdio buffers are flushed first (at exit,
 * not at _exit, which skips them). */
void mt_report_at_exit(bool flush);
/* Reads what the exit report needs while the process has descriptors to spare (the
 * suppressions file), at load time. */
void mt_report_prepare(void);
/* Around fork, so a child never inherits a report being built. */
void mt_report_lock(void);
void mt_report_unlock(void);
/* Takes the report lock if it is free (the crash handler waits for nothing). */
bool mt_report_trylock(void);

/* Loads the rules when the option changed; returns how many there are. */
size_t mt_suppress_count(void);
const char *mt_suppress_rule(size_t i);
/* True when a rule matches what holds leaks (held:), which then must be named. */
bool mt_suppress_any_held(void);
/* The first rule that matches a group of leaks made at p and held by `held` (NULL: not
 * known), or -1. */
long mt_suppress_match(const mt_place_t *p, const mt_holder_t *held);

/* Renders the live blocks for the crash report (api/crash.c); false when it could not. */
bool mt_report_crash_text(int fd);

#endif /* MT_REPORT_H */
