/* fail.h - allocations made to fail on purpose (options fail_*), so that a program's error
 * paths run as they would when memory runs out: which allocations count, which fail, and
 * the log of those that did, for the report (fail.c).
 */
#ifndef MT_FAIL_H
#define MT_FAIL_H

#include "base/platform.h"

/* Set at the layout's freeze when an option fail_* asks for failures or a count. The
 * allocation paths test it only on their slow branch, which every allocation then takes
 * (mt_page_guard_every_call): with no fail_ option the hot path pays nothing. */
extern MT_HIDDEN bool mt_fail_armed;
/* Reads the options (at the first block, with the layout). */
void mt_fail_freeze(void);
/* A process that stands aside (option track_programs) fails nothing. Before the freeze. */
void mt_fail_stand_aside(void);
/* Whether the allocation about to be made at site (size bytes) is to fail: counts it when
 * it is one the options count, and logs it when it fails. Only while armed. */
bool mt_fail_now(uint32_t site, size_t size);
/* The same for an allocation of a tracked pool or arena, false at once while not armed: a
 * function, as pools and arenas refer to no variable of the tracker (pool_nocalls.sh). */
bool mt_fail_owned(uint32_t site, size_t size);

/* An allocation that failed on purpose. */
typedef struct mt_fail_entry {
    uint64_t nth; /* its number among the allocations counted: fail_nth=nth fails it again */
    uint32_t site;
    size_t size;
} mt_fail_entry_t;

/* What was counted and failed, for the report. */
typedef struct mt_fail_counts {
    bool armed;
    uint64_t counted;   /* allocations counted (what fail_nth numbers) */
    uint64_t failed;    /* of those, failed on purpose */
    uint64_t windows;   /* memtrack_fail_begin() calls */
    uint64_t in_window; /* allocations counted inside a window (all of them with fail_window) */
    uint64_t seed;      /* fail_rate's seed in effect (0: fail_rate not set) */
} mt_fail_counts_t;
void mt_fail_counts(mt_fail_counts_t *out);
/* Copies the first failures logged, in the order they happened; returns how many. */
size_t mt_fail_log_read(mt_fail_entry_t *out, size_t max);
/* How many failures the log keeps (the report's room for them). */
#define MT_FAIL_LOG_MAX MT_SMALL(1024u, 16u)

#endif /* MT_FAIL_H */
