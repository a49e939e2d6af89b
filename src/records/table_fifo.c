/* table_fifo.c - the quarantine's order: per shard, a FIFO of the records of freed blocks,
 * oldest first (the budget is quarantine.c's). A freed record stays in its shard's hash,
 * flagged MT_META_FLAG_FREED, and leaves it when it leaves the FIFO.
 *
 * The FIFO is a queue of 4 KiB segments, not one array that doubles: its memory grows with
 * what the quarantine holds and is never copied (a doubling array briefly holds three times
 * its entries, which a process out of address space may not have).
 */
#include "records/table.h"

/* One segment: a block of 4 KiB of the tracker's memory, its 16-byte header included
 * (256 bytes on bare metal: 59 blocks, where the quarantine holds a few dozen). */
#define FIFO_ENTRIES ((MT_SMALL(4096u, 256u) - 16u - sizeof(void *)) / sizeof(mt_block_t *))

struct mt_fifo_segment {
    struct mt_fifo_segment *next; /* the next newer segment */
    mt_block_t *entry[FIFO_ENTRIES];
};

/* The insert's end, a segment with room at the FIFO's end. */
static inline __attribute__((always_inline)) bool queue_locked(mt_shard_t *s, mt_block_t *b,
                                                               size_t cost)
{
    /* Under the lock, nobody reads b's meta without it: a plain write. */
    b->meta = (b->meta & ~MT_META_FLAG_REPORTED) | MT_META_FLAG_FREED | MT_META_FLAG_PENDING;
    s->fifo_last->entry[s->fifo_tail++] = b;
    s->fifo_count++;
    s->quarantine_bytes += cost;
    return true;
}

/* The insert with a new segment at the FIFO's end first (the one kept spare, or a new
 * one). Out of line: the common insert calls nothing and saves no registers. */
static MT_NOINLINE bool insert_growing_locked(mt_shard_t *s, mt_block_t *b, size_t cost)
{
    struct mt_fifo_segment *seg = s->fifo_spare;
    if (seg != NULL)
        s->fifo_spare = NULL;
    else if ((seg = mt_table_storage_alloc(sizeof *seg)) == NULL)
        return false;
    seg->next = NULL;
    if (s->fifo_last != NULL)
        s->fifo_last->next = seg;
    else
        s->fifo_first = seg;
    s->fifo_last = seg;
    s->fifo_tail = 0;
    return queue_locked(s, b, cost);
}

bool mt_quarantine_insert_locked(mt_shard_t *s, mt_block_t *b, size_t cost)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    MT_ASSERT(mt_table_find_locked(s, mt_block_addr(b)) == b);
    if (MT_UNLIKELY(s->fifo_last == NULL || s->fifo_tail == FIFO_ENTRIES))
        return insert_growing_locked(s, b, cost);
    return queue_locked(s, b, cost);
}

mt_block_t *mt_quarantine_find_locked(mt_shard_t *s, uintptr_t addr)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    mt_block_t *b = mt_table_lookup_locked(s, addr);
    return b != NULL && (mt_meta_load(b) & MT_META_FLAG_FREED) ? b : NULL;
}

/* The end of taking b, the oldest block, out of the FIFO: the oldest segment, used up, gives
 * way to the next (one is kept for the next, so a steady state allocates nothing). */
static MT_NOINLINE mt_block_t *segment_done_locked(mt_shard_t *s, mt_block_t *b)
{
    struct mt_fifo_segment *done = s->fifo_first;
    s->fifo_first = done->next;
    s->fifo_head = 0;
    if (s->fifo_spare == NULL)
        s->fifo_spare = done;
    else
        mt_mem_free(done);
    return b;
}

/* How far ahead the evictions load what they will touch, in two steps: the record of the
 * block RECORD_AHEAD places on, and for the block REST_AHEAD places on, whose record came
 * in (RECORD_AHEAD - REST_AHEAD) evictions ago, its bucket, its chain neighbours (the
 * unlink writes them) and its memory (the fill's check, the C library's free). A block
 * leaves the quarantine a whole quarantine's worth of frees after it came: with hundreds
 * of thousands of live blocks all of these have left the caches by then. A program frees
 * in bursts (an interpreter's sweep frees thousands in a row), so one eviction ahead is
 * not time enough for a miss. (On the Lua host, 16/8 and 12/4 measured the same as 8/4.) */
#define MT_EVICT_RECORD_AHEAD 8u
#define MT_EVICT_REST_AHEAD 4u
_Static_assert(MT_EVICT_REST_AHEAD < MT_EVICT_RECORD_AHEAD && MT_EVICT_RECORD_AHEAD < FIFO_ENTRIES,
               "the rest is loaded after its record; one segment ahead at most");
/* The block `ahead` places after the oldest, which must be in the oldest segment. */
static inline mt_block_t *entry_ahead_locked(const mt_shard_t *s, unsigned ahead)
{
    return s->fifo_first->entry[s->fifo_head + ahead];
}

/* Starts loading what later evictions will touch (above). A prefetch never faults, whatever
 * a record holds; a pending record's links and size are the lock's, which we hold. */
static inline __attribute__((always_inline)) void prefetch_next_locked(const mt_shard_t *s)
{
    if (s->fifo_count <= MT_EVICT_RECORD_AHEAD ||
        s->fifo_head + MT_EVICT_RECORD_AHEAD >= FIFO_ENTRIES)
        return; /* (a short quarantine, or the end of a segment: these few go without) */
    __builtin_prefetch(entry_ahead_locked(s, MT_EVICT_RECORD_AHEAD));
    const mt_block_t *next = entry_ahead_locked(s, MT_EVICT_REST_AHEAD);
    __builtin_prefetch(next->hh.hh_prev, 1);
    __builtin_prefetch(next->hh.hh_next, 1);
    __builtin_prefetch(mt_uthash_bucket(s->table, next->hh.hashv), 1);
    /* its memory: the first two lines and the last (the check reads them all; the rest of
     * a longer block comes in behind the scan) */
    const char *user = next->hh.key;
    __builtin_prefetch(user - MT_MIN_ALIGN);
    __builtin_prefetch(user - MT_MIN_ALIGN + 64);
    __builtin_prefetch(user + next->size);
}

mt_block_t *mt_quarantine_take_oldest_locked(mt_shard_t *s)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    if (s->fifo_count == 0)
        return NULL;
    mt_block_t *b = s->fifo_first->entry[s->fifo_head];
    if (mt_meta_load(b) & MT_META_FLAG_PENDING)
        return NULL; /* its thread is still filling it */
    s->fifo_head++;
    s->fifo_count--;
    if (s->fifo_count == 0) { /* empty: the one segment left starts over */
        MT_ASSERT(s->fifo_first == s->fifo_last);
        s->fifo_head = s->fifo_tail = 0;
    }
    /* (inline, calling nothing: the common case saves no registers) */
    mt_table_drop_hashed_locked(s, b); /* (recycled: only the handle changes) */
    prefetch_next_locked(s);
    if (MT_UNLIKELY(s->fifo_head == FIFO_ENTRIES)) /* the oldest segment is used up */
        return segment_done_locked(s, b);
    return b;
}

void mt_quarantine_foreach(void (*fn)(mt_shard_t *s, mt_block_t *b, void *ctx), void *ctx)
{
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        if (!mt_table_lock_for_walk(s))
            continue;
        const struct mt_fifo_segment *seg = s->fifo_first;
        unsigned k = s->fifo_head;
        for (size_t left = s->fifo_count; left > 0; left--, k++) { /* oldest first */
            if (k == FIFO_ENTRIES) {
                seg = seg->next;
                k = 0;
            }
            fn(s, seg->entry[k], ctx);
        }
        mt_unlock(&s->lock);
    }
}
