/* stack.h - call stacks, interned: each unique stack is stored once and known by a 32-bit id.
 */
#ifndef MT_STACK_H
#define MT_STACK_H

#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "base/options.h"
#include "base/platform.h"
#include "base/unwind.h"
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
/* The walk an owner keeps of its last allocation's stack (an arena's: api/arena_tracked.c),
 * so that the next one, nearly always made through the same calls, knows its stack by
 * comparing return addresses: no hash, no lookup. Exact: the same return addresses, as
 * many, are the same walk, which mt_stack_found_here answers the same stack for. */
#define MT_STACK_WALK_NONE UINT_MAX
typedef struct mt_stack_walk {
    unsigned n; /* return addresses in pcs; MT_STACK_WALK_NONE when no walk is kept */
    void *pcs[MT_WALK_MAX];
} mt_stack_walk_t;
/* mt_stack_found_here's inline walk from frame (an entry point's, on this thread's stack),
 * compared with and left in *w: 1 when it is the walk w held, 0 when it is another (now in
 * w: mt_stack_found_walked gives its stack), -1 when there is no inline walk to make (a call
 * inside the tracker, unwind=exact, an alternate signal stack, the thread's first walk: w is
 * left as it was; mt_stack_found_any then). Option stack 0 walks nothing: an empty walk. */
static inline int mt_stack_walk_again(void *frame, mt_stack_walk_t *w)
{
    size_t depth = mt_opt.stack;
    if (MT_UNLIKELY(mt_busy))
        return -1;
    if (depth == 0) {
        bool same = w->n == 0;
        w->n = 0;
        return same;
    }
#ifdef MT_UNWIND_FRAME_RECORDS
    uintptr_t last;
    /* (the frame stands for the stack pointer of mt_unwind_walkable's test: it is a live
     * word of the stack, below every frame the walk reads) */
    if (depth > MT_STACK_MAX ||
        !mt_unwind_walkable(frame, (void *const *)frame, mt_opt.unwind[0] == 'e', &last))
        return -1;
    unsigned max = (unsigned)depth + MT_WALK_ROOM, i = 0;
    uintptr_t at = mt_word_rotated((uintptr_t)frame), top = last >> MT_WORD_SHIFT;
    bool same = true;
    /* As mt_walk_records_end, storing only from the first return address that differs. */
    while (i < max && at <= top) {
        void *const *record = (void *const *)(at << MT_WORD_SHIFT);
        uintptr_t ret = (uintptr_t)record[MT_RECORD_RETURN_WORD],
                  next = mt_word_rotated((uintptr_t)record[0]);
        if (ret < 4096)
            break;
        if (MT_UNLIKELY(w->pcs[i] != (void *)ret)) {
            same = false;
            w->pcs[i] = (void *)ret;
        }
        i++;
        if (next <= at)
            break;
        at = next;
    }
    if (MT_LIKELY(same && i == w->n))
        return 1;
    w->n = i;
    return 0;
#else
    (void)frame;
    (void)w;
    return -1;
#endif
}
/* The stack of a walk mt_stack_walk_again left in w, with this thread's cache entry for it,
 * as mt_stack_found_here answers. */
mt_stack_found_t mt_stack_found_walked(const mt_stack_walk_t *w);
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
