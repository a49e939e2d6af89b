/* page_guard.h - page-guarded blocks: a block laid against an inaccessible page, so that
 * the access that overruns it (or underruns it, page_guard_side=start), or that uses it
 * after free, faults at the instruction that made it, which the fault handler names.
 *
 * Which blocks: one allocation in page_guard_rate, at random, while fewer than
 * page_guard_slots sampled blocks hold pages (GWP-ASan's design); every block made at a
 * page_guard_site; every block with page_guard=all (Electric Fence's). The blocks keep
 * their records in the table as any block does; only their memory differs: it comes from
 * one region reserved at the first such block, and freed blocks keep their pages
 * inaccessible until the slot is reused.
 */
#ifndef MT_PAGE_GUARD_H
#define MT_PAGE_GUARD_H

#include "base/buf.h"
#include "checks/guard.h"

/* The region of page-guarded blocks, [mt_pg_start, mt_pg_start + mt_pg_size): empty until
 * the first one is made. */
extern MT_HIDDEN uintptr_t mt_pg_start; /* (every free reads them: MT_HIDDEN, base/platform.h) */
extern MT_HIDDEN size_t mt_pg_size;
static inline bool mt_page_guarded(uintptr_t addr)
{
    return addr - mt_pg_start < mt_pg_size;
}

/* page_guard_side=start: the page is before the block (frozen with the layout). */
extern bool mt_page_guard_start;

/* Allocations this thread makes before the next sample, this one included (0: not armed;
 * 1 always while sites or all are chosen, so that every allocation asks). Set by
 * mt_page_guard_choose only, which an allocation calls after the layout is frozen: while a
 * thread's countdown runs, the layout is frozen. */
extern MT_TLS size_t mt_pg_countdown;
/* Sites or all are chosen, or allocations may fail on purpose (api/fail.c): every
 * allocation asks mt_page_guard_choose. */
extern MT_HIDDEN bool mt_pg_every_call;
/* Sends every allocation to mt_page_guard_choose from now on (as sites or all do), so that
 * the caller's slow branch runs at each: api/fail.c asks it while allocations may be made
 * to fail, which then costs the hot path nothing when they are not. At the layout's freeze. */
void mt_page_guard_every_call(void);
/* Whether the allocation about to be made at site is to be page-guarded. */
bool mt_page_guard_choose(uint32_t site);
/* The hot path's answer, from this thread's countdown as read: while it runs, no allocation
 * is page-guarded and the caller stores countdown - 1 (one thread-local decrement);
 * otherwise it asks mt_page_guard_choose. */
static inline bool mt_page_guard_counting(size_t countdown)
{
    return MT_LIKELY(countdown > 1);
}

/* Reads the options (at the first block, with the layout). */
void mt_page_guard_freeze(void);
/* True when some block may be page-guarded (the fault handler must be installed). */
bool mt_page_guard_enabled(void);
/* A page-guarded block of size bytes (alignment align, 16 or more), or NULL when it cannot
 * be one (too big, no free slot, no region): the caller then makes an ordinary block.
 * The block is zero but for the pattern of what surrounds it. */
void *mt_page_guard_alloc(size_t size, size_t align, uint32_t site);
/* Releasing a page-guarded block, in two steps: its record as it leaves the table (free
 * site set) is kept, under the shard's lock, so a second free finds it freed at once;
 * then, the lock released, its pages become inaccessible until its slot is reused. */
void mt_page_guard_retire_locked(const mt_block_t *b);
void mt_page_guard_free(const mt_block_t *b);
/* Gives back a page-guarded block of size bytes at user that never had a record (the
 * table could not take it): nobody knows it, so no lock is needed. */
static inline void mt_page_guard_discard(void *user, size_t size)
{
    mt_block_t b = {.size = size};
    mt_block_set_addr(&b, (uintptr_t)user);
    mt_page_guard_retire_locked(&b);
    mt_page_guard_free(&b);
}
/* A pointer released that is no live block: when it starts a freed page-guarded block
 * (a double free) or points inside one (an invalid free), reports it and returns true. */
bool mt_page_guard_freed_again(const void *ptr, uint32_t site);
/* The record of the freed page-guarded block that starts at ptr, if its slot still holds it
 * (a pool's second release of a page-guarded object tells it as the pool's own error). */
bool mt_page_guard_freed_record(const void *ptr, mt_block_t *out);
/* The guard check of a page-guarded block: the bytes between it and its page's edge on
 * the side without the inaccessible page (the other side faults instead). */
bool mt_page_guard_damaged(const mt_block_t *b, mt_guard_damage_t *under, mt_guard_damage_t *over);
/* Called by the crash handler for SIGSEGV and SIGBUS: a fault inside the region is
 * reported (once per block). Returns 0 when the fault is not one of ours, 1 when the
 * access may run again (the page was opened), 2 when the program is to end as the signal
 * would (page_guard_stop=1). */
int mt_page_guard_fault(void *addr, void *ucontext);
/* The pool's lock, taken around fork. */
void mt_page_guard_lock(void);
void mt_page_guard_unlock(void);

#endif /* MT_PAGE_GUARD_H */
