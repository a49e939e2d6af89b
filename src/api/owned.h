/* owned.h - blocks whose memory a pool, an arena or the program's own allocator owns.
 */
#ifndef MT_OWNED_H
#define MT_OWNED_H

#include "errors/error.h"
#include "records/site.h"
#include "records/stack.h"
#include "records/table.h"

/* Their records sit in the table like malloc'd blocks (same report, same statistics, same
 * guard checks), flagged MT_META_FLAG_OWNED: free() and realloc() report them instead of
 * handing them to the C library. pool.c and arena.c reach the tracker only through these
 * functions (and mt_site_*, mt_error_report, mt_guard_*), never through its variables:
 * test/e2e/pool_nocalls.sh links their untracked paths with every one of them aborting.
 * ---------------------------------------------------------------------------------- */

/* Starts tracking [user, user + size), laid out as guard.c draws it for `align` (guards
 * already filled by the caller). site must be of an owned kind. *seq gets the block's
 * sequence number. Returns false, tracking nothing, when the table is out of memory or
 * the caller runs inside the tracker (a signal handler). */
bool mt_owned_insert(const void *user, size_t size, size_t align, uint32_t site, uint64_t *seq);
/* mt_owned_log (api/owned_log.h, inline for the tracked arena alone): the record-to-be of
 * an owned block whose owner logs it and gives it a record only when someone asks the table
 * (mt_owners_publish; api/arena_tracked.c): counts it in the statistics now and returns its
 * meta (sequence number, thread, alignment; MT_META_FLAG_OWNED), or 0 when it is not to be
 * tracked (site MT_SITE_NONE, or a call inside the tracker). */
/* Gives a logged block its record (meta from mt_owned_log, counted already). False, and
 * the block is no longer counted, when the table is out of memory. */
bool mt_owned_publish(const void *user, size_t size, uint64_t meta, uint32_t site);
/* Logged blocks released before they had records, bytes in all: uncounts them, in one
 * event (an arena's reset releases thousands at once). */
void mt_owned_unlog(size_t bytes, size_t blocks);
/* Stops tracking the pool's or arena's block at user: checks its guards (damage is
 * reported as found at found_site) and takes its record out; *out (unless NULL) gets a
 * copy. False if there is none. */
bool mt_owned_remove(const void *user, uint32_t found_site, mt_block_t *out);
/* The same for a block mt_owned_paged_alloc made: its pages become inaccessible, its
 * record (released at found_site) kept for a fault there. */
bool mt_owned_remove_paged(const void *user, uint32_t found_site, mt_block_t *out);
/* Whether an owned allocation is to ask the page guards (mt_owned_paged_alloc): this
 * thread's countdown as api/alloc.c takes it, decremented while it runs, so that pools
 * and arenas are sampled with malloc's blocks. A function, not inline: pool.c and arena.c
 * reach the tracker through functions alone (test/e2e/pool_nocalls.sh). */
bool mt_owned_paged_due(void);
/* Whether addr lies among page-guarded blocks (checks/page_guard.h's mt_page_guarded, as
 * a function for the same reason). */
bool mt_owned_paged_at(const void *addr);
/* When due: an owned block of size bytes against a guard page (api/owned_paged.c), if the
 * page guards' options choose the allocation at site; tracked as mt_owned_insert tracks
 * (*seq set). NULL when not chosen or not possible: the owner then places it in its own
 * memory. Its owner releases it with mt_owned_remove_paged. */
void *mt_owned_paged_alloc(size_t size, size_t align, uint32_t site, uint64_t *seq);
/* Checks the guards of the owned block at user now (damage reported once); returns 1 if
 * they are damaged. */
int mt_owned_check(const void *user, uint32_t found_site);
/* Copies the record of any live tracked block starting at addr (of twins, the chunk). */
bool mt_block_peek(const void *addr, mt_block_t *out);
/* free(), realloc() or delete of an owned block (b, a copy of its record): reported, and
 * the block stays as it was. */
void mt_owned_misuse(const mt_block_t *b, uint32_t found_site);
/* Interned copy of an owner name (pool, arena, registrar), never freed, so sites and
 * reports can keep it after the pool is gone. NULL stays NULL; "?" if out of memory. */
const char *mt_owner_intern(const char *name);
/* The site of a call into a pool or an arena: file and line when the macros gave them,
 * else the caller's address; with the stack that led there (MT_OWNED_STACK), so that a
 * pool object is shown, as a malloc'd block is, at the line outside the engine's own
 * Allocate and Free (records/wrapper.c). */
uint32_t mt_owned_site(const char *file, int line, const char *func, void *pc, mt_kind_t kind,
                       const char *owner, uint32_t stack);
/* The stack of the calls that led to the entry point it is written in (records/stack.h),
 * taken there because only the entry point's frame knows its caller's. Only on a tracked
 * path: an untracked pool or arena calls nothing of the tracker. */
#define MT_OWNED_STACK() mt_stack_here(__builtin_frame_address(0), __builtin_return_address(0))
/* The same stack with the entry of this thread's stacks' cache that keeps the site last
 * made at it (records/stack.h): for entry points that allocate or release, whose site
 * mt_owned_site_found then finds as malloc's is found, without a lookup. */
#define MT_OWNED_FOUND() mt_stack_found_any(__builtin_frame_address(0), __builtin_return_address(0))
/* mt_owned_site(file, line, func, pc, kind, owner, found.stack), from the found stack's
 * entry when the site last made at that stack is this place's (a stack is nearly always
 * reached from one place), and kept there when it is not. owner: the interned name. */
static inline uint32_t mt_owned_site_found(const char *file, int line, const char *func, void *pc,
                                           mt_kind_t kind, const char *owner,
                                           mt_stack_found_t found)
{
    if (found.stack == MT_STACK_NONE) /* (stacks off, or none taken: no entry) */
        return mt_owned_site(file, line, func, pc, kind, owner, MT_STACK_NONE);
#ifndef MT_BARE_METAL /* (sites without the keys: records/site.h) */
    const mt_site_t *s = *found.site;
    if (MT_LIKELY(s->file_key == file && s->pc == pc && mt_site_line_kind_is(s, line, kind) &&
                  s->func_key == func && s->owner_key == owner && s->stack == found.stack))
        return s->id;
#endif
    uint32_t id = mt_owned_site(file, line, func, pc, kind, owner, found.stack);
    mt_site_keep(found, id);
    return id;
}

/* Tracked pools and arenas, so the exit-time check can look at their released memory. */
typedef struct mt_owner {
    struct mt_owner *next, *prev;
    /* Checks released memory still holds its pattern; returns problems found. Runs with
     * owners.lock held, from the exit-time check only. */
    int (*check)(struct mt_owner *self, uint32_t found_site);
    /* True when addr lies in the allocator's memory (live or not). With owners.lock. */
    bool (*contains)(struct mt_owner *self, uintptr_t addr);
    /* Gives the blocks it only logged so far their records (mt_owned_publish), before
     * anything reads the table for them; NULL when every block has one. With owners.lock. */
    void (*publish)(struct mt_owner *self);
    const char *name; /* interned */
    mt_kind_t kind;   /* MT_KIND_POOL or MT_KIND_ARENA */
    bool listed;      /* added and not removed yet */
} mt_owner_t;
void mt_owner_add(mt_owner_t *o);
/* Takes a lock of an owner's own (an arena's log, against a publisher in another thread);
 * inside the tracker (a signal handler that interrupted this thread holding it) it is
 * only tried, and false means not taken. Functions, so that an untracked pool or arena
 * reads no variable of the tracker's (test/e2e/pool_nocalls.sh). */
bool mt_owner_lock(mt_lock_t *l);
void mt_owner_unlock(mt_lock_t *l);
void mt_owner_remove(mt_owner_t *o);
/* free() or realloc() by tracked code of a pointer the tracker does not know: when it
 * lies in a tracked pool's or arena's memory (a stale pointer), reports it and returns
 * true, and the caller leaves it alone. */
bool mt_owned_memory_misuse(const void *ptr, uint32_t found_site);
/* Every owner's blocks in the table (their publish hooks): before a report, a check of
 * every block or a leak scan reads it. Not in the crash handler (it takes owners.lock). */
void mt_owners_publish(void);
/* Runs every registered check; returns the problems found. */
int mt_owners_check(uint32_t found_site);
void mt_owners_lock_all(void);
void mt_owners_unlock_all(void);

#endif /* MT_OWNED_H */
