/* quarantine.h - freed blocks held back to catch double frees and late writes.
 */
#ifndef MT_QUARANTINE_H
#define MT_QUARANTINE_H

#include "checks/guard.h"
#include "errors/error.h"
#include "records/table.h"

/* What a freed block counts against the quarantine budget: all it holds from the C
 * library (guards included), at least 16 bytes so empty blocks count too. The _front form
 * for a caller that has the front guard's size already. */
static inline size_t mt_quarantine_cost_front(size_t front, size_t size)
{
    size_t cost = front + size + mt_block_back();
    return cost < 16 ? 16 : cost;
}
static inline size_t mt_quarantine_cost(size_t size, unsigned align_shift)
{
    return mt_quarantine_cost_front(mt_block_front(align_shift), size);
}
/* Puts a live block into quarantine as pending (it stays in the table, flagged freed), then
 * releases the oldest non-pending blocks while the shard holds more than `budget`. Blocks
 * found written after free are described in errs[0..MT_EVICT_REPORTS) for the caller to
 * report once the lock is released; returns how many (the eviction stops early when errs is
 * full). MT_NOT_HELD, with nothing done, when b does not fit the budget or the FIFO cannot
 * grow: the caller takes it out of the table and releases it at once. One call for both, so
 * that the free keeps its values across one call, not two. */
#define MT_EVICT_REPORTS 8u
#define MT_NOT_HELD SIZE_MAX
size_t mt_quarantine_hold_locked(mt_shard_t *s, mt_block_t *b, size_t budget, uint32_t site,
                                 mt_error_t *errs);
/* The freeing thread's part, outside the lock: fill the block (counting bytes never
 * written), then end its pending state so it may leave the quarantine. */
void mt_quarantine_fill_and_publish(mt_block_t *b, const mt_block_t *copy);
/* Releases every quarantined block (out of memory); returns bytes given back. */
size_t mt_quarantine_drain(uint32_t site);
/* Checks every block in quarantine for writes after free, reporting each damaged block
 * once; returns how many were damaged (memtrack_check, the exit-time check). */
int mt_quarantine_check_all(uint32_t site);

/* What was a block, after its memory went back to the C library (too big for the
 * quarantine, quarantine=0, or evicted): the shard remembers the last MT_GONE_MAX of them,
 * address, size and sites, in a ring that holds no user memory. A pointer freed again that
 * the C library does not lend out any more is then named a double free with both sites. */
#define MT_GONE_MAX MT_SMALL(256u, 16u) /* (bare metal: 16, 512 bytes a shard) */
typedef struct mt_gone_entry {
    /* (size to free_site as a record lays them out: the note copies them in one go) */
    size_t size;
    uint64_t meta; /* as the record had it: its flags are cleared when it is found */
    uint32_t site, free_site;
    uintptr_t addr; /* 0: not used yet (no block starts at 0) */
} mt_gone_entry_t;

_Static_assert((MT_GONE_MAX & (MT_GONE_MAX - 1)) == 0 && MT_GONE_MAX <= 256,
               "the ring's index, a byte, wraps by a mask");

struct mt_gone {
    mt_gone_entry_t ring[MT_GONE_MAX]; /* zeroed when made */
    unsigned char next; /* where the next one goes (a byte: 256 wrap by themselves) */
};

/* Notes b, a record or a copy of one, in the shard's ring g. */
static inline __attribute__((always_inline)) void mt_gone_put(struct mt_gone *g,
                                                              const mt_block_t *b)
{
    mt_gone_entry_t *e = &g->ring[g->next];
    e->addr = mt_block_addr(b);
    e->size = b->size;
    e->meta = b->meta;
    e->site = b->site;
    e->free_site = b->free_site;
    g->next = (unsigned char)((g->next + 1) & (MT_GONE_MAX - 1));
}
/* Remembers b (its free_site set), which is being given back. Caller holds s's lock. */
void mt_gone_note_locked(mt_shard_t *s, const mt_block_t *b);
/* mt_gone_note_locked, then mt_table_drop_locked: a free that gives b back at once, in one
 * call. */
void mt_gone_drop_locked(mt_shard_t *s, mt_block_t *b);
/* The same inline, for a free that calls nothing while it holds the lock (b found in bucket):
 * the note taken from copy, b's copy (its free_site set); the shard's first note (the ring made)
 * goes out of line. */
static inline __attribute__((always_inline)) void mt_gone_drop_inline_locked(mt_shard_t *s,
                                                                             mt_block_t *b,
                                                                             UT_hash_bucket *bucket,
                                                                             const mt_block_t *copy)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    struct mt_gone *g = s->gone;
    if (MT_UNLIKELY(g == NULL)) {
        mt_gone_drop_locked(s, b);
        return;
    }
    mt_gone_put(g, copy);
    mt_table_drop_inline_locked(s, b, bucket);
}
/* Copies the newest remembered block that started at ptr; false when none did. */
bool mt_gone_find(const void *ptr, mt_block_t *out);

#endif /* MT_QUARANTINE_H */
