/* stack.h - call stacks, interned: each unique stack is stored once and known by a 32-bit id.
 */
#ifndef MT_STACK_H
#define MT_STACK_H

#include <stddef.h>
#include <string.h>

#include "base/options.h"
#include "base/platform.h"
#include "records/site.h"

#define MT_STACK_NONE 0u /* id 0: no stack */

/* The id of the stack of the calls that led to the entry point whose frame is `frame` and
 * whose return address is `caller` (base/unwind.h), at the depth of option stack; 0 when
 * stacks are off or none could be taken. Call it before taking any tracker lock. */
uint32_t mt_stack_here(void *frame, void *caller);
/* mt_stack_here for a release that found a bad or freed block with its shard's lock held
 * (shards come before the sites and the stacks in the lock order): that one lock does not
 * make it a nested call, as mt_reentered would take it for. */
uint32_t mt_stack_here_in_shard(void *frame, void *caller);
/* The stack of the calls that led to this function's caller, less the `skip` innermost of
 * them: for an entry point that cannot hand its own frame down (a pool's or an arena's,
 * reached through helpers of the tracker's), at the depth of option stack. Out of line;
 * call it before taking any tracker lock. */
MT_NOINLINE uint32_t mt_stack_skipping(unsigned skip);
/* A stack found by mt_stack_found_here, and where this thread's cache keeps the site last
 * made at it (records/site.h; a site of no place when none has been). */
typedef struct mt_stack_found {
    const mt_site_t **site;
    uint32_t stack;
} mt_stack_found_t;
mt_stack_found_t mt_stack_found_here(void *frame, void *caller);
/* mt_stack_found_here for a caller that found mt_busy 0 (not tested again). */
mt_stack_found_t mt_stack_found_idle(void *frame, void *caller);
/* mt_stack_found_here, or no stack when option stack is 0: for entry points that hand what
 * they found down to helpers (pools, arenas and registered blocks, api/owned.h, which read
 * no tracker variable: test/e2e/pool_nocalls.sh). */
mt_stack_found_t mt_stack_found_any(void *frame, void *caller);
/* Keeps site id in the entry of a found stack, for the next call from the same place. */
void mt_site_keep(mt_stack_found_t found, uint32_t id);
/* The site of a place and a found stack (mt_site_stacked), kept for the next call. */
uint32_t mt_site_learn(mt_stack_found_t found, const char *file, int line, const char *func,
                       mt_kind_t kind);

/* s->line == line && s->kind == kind, as one compare of the two neighbours (the kind is a
 * constant and the line already widened in its register: one instruction on x86-64). */
static inline bool mt_site_line_kind_is(const mt_site_t *s, int line, mt_kind_t kind)
{
    typedef struct line_kind {
        int line;
        mt_kind_t kind;
    } line_kind_t;
    if (sizeof(line_kind_t) != sizeof(uint64_t) ||
        offsetof(mt_site_t, kind) != offsetof(mt_site_t, line) + sizeof(int))
        return s->line == line && s->kind == kind;
    line_kind_t want = {line, kind};
    uint64_t a, b;
    memcpy(&a, (const char *)s + offsetof(mt_site_t, line), sizeof a);
    memcpy(&b, &want, sizeof b);
    return a == b;
}

/* mt_site_stacked(file, line, func, kind, NULL, mt_stack_here(frame, caller)) with one
 * per-thread lookup: a stack is nearly always reached from one place (its first frame is the
 * call's return address), so the site last made at the stack is checked against this place
 * (by the pointers it was looked up by) and this stack. Inline in the entry points, where
 * the place is still in registers after the walk. idle: the caller found mt_busy 0. */
static inline uint32_t mt_site_here_idle(const char *file, int line, const char *func,
                                         mt_kind_t kind, void *frame, void *caller, bool idle)
{
#ifdef MT_BARE_METAL /* sites without what the check needs (the tracker's memory is scarce) */
    return mt_site_stacked(file, line, func, kind, NULL, mt_stack_here(frame, caller));
#else
    if (mt_opt.stack == 0)
        return mt_site_at(file, line, func, kind);
    mt_stack_found_t found =
        idle ? mt_stack_found_idle(frame, caller) : mt_stack_found_here(frame, caller);
    const mt_site_t *s = *found.site;
    if (MT_LIKELY(s->file_key == file && mt_site_line_kind_is(s, line, kind) &&
                  s->func_key == func && s->stack == found.stack))
        return s->id;
    return mt_site_learn(found, file, line, func, kind);
#endif
}
static inline uint32_t mt_site_here(const char *file, int line, const char *func, mt_kind_t kind,
                                    void *frame, void *caller)
{
    return mt_site_here_idle(file, line, func, kind, frame, caller, false);
}

/* The id of the stack pcs[0..n) (interned when new); 0 for an empty stack. */
uint32_t mt_stack_intern(void *const *pcs, unsigned n);
/* The return addresses of stack id, innermost first; returns how many (0 for id 0). The
 * array stays valid for the life of the process. */
unsigned mt_stack_get(uint32_t id, void *const **pcs);
/* Stack ids in use (ids from 1 up to it, less one, may be stored). */
uint32_t mt_stack_count(void);
void mt_stacks_lock_all(void);
void mt_stacks_unlock_all(void);

#endif /* MT_STACK_H */
