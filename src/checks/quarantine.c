/* quarantine.c - freed blocks held back before their memory goes back to the C library.
 *
 * A tracked block that is freed stays in its shard's table, flagged freed, and joins the
 * shard's quarantine: a FIFO of freed records (records/table.c), oldest first. While a
 * block is there its memory belongs to nobody else, so:
 *   - a second free, or a realloc, of its address is found by the same lookup that finds
 *     a live block, under the lock the free path takes anyway, and is a double free for
 *     certain;
 *   - it is filled with 0xDD (fill_freed), and a byte that changed when it leaves, at
 *     memtrack_check() or at exit is a write after free.
 *
 * Budget: each shard keeps up to `quarantine` bytes (mt_quarantine_cost of each block),
 * evicting its oldest blocks when a free pushes it over. Only frees into the same shard
 * push a block out, so "a block stays until the blocks freed after it, plus itself, hold
 * more than `quarantine` bytes" holds exactly, whatever other threads do. A global total
 * with per-shard FIFOs could not promise that (an idle shard's old blocks would force
 * another shard to evict a block freed a moment ago) without a global clock in every
 * record. The price: a program whose frees land in k shards (k threads' arenas) holds up
 * to k x `quarantine` bytes. A block costing more than the budget is not held at all.
 *
 * The freeing thread fills its block outside the lock. Until it has, the record is
 * PENDING: found by lookups (a racing double free is reported), never checked or evicted.
 * Eviction itself (the pattern check and the C library's free) happens under the lock, so
 * a racing second free either finds the block here or finds it back in the C library.
 */
#include <string.h>

#include "base/memory.h"
#include "checks/guard.h"
#include "checks/quarantine.h"
#include "checks/unwritten.h"

/* The hold's first step: false when b does not fit (mt_quarantine_hold_locked). */
static inline bool put_locked(mt_shard_t *s, mt_block_t *b, size_t budget)
{
    size_t cost = mt_quarantine_cost(b->size, MT_META_ALIGN_SHIFT(b->meta));
    if (cost > budget)
        return false;
    return mt_quarantine_insert_locked(s, b, cost);
}

/* Describes the writes after free in a quarantined block whose fill changed, in e. */
static MT_NOINLINE bool describe_freed(const mt_block_t *b, uint32_t site, mt_error_t *e)
{
    /* (its sequence number and thread: a freed record's flags may change under us, these
     * never do) */
    uint64_t meta = mt_meta_load(b);
    size_t first = 0, last = 0;
    const unsigned char *user = (const unsigned char *)mt_block_addr(b);
    size_t changed = mt_pattern_scan(user, b->size, MT_FREE_FILL_BYTE, &first, &last);
    mt_error_init(e, MT_ERROR_WRITE_AFTER_FREE, NULL, site);
    e->addr = mt_block_addr(b);
    e->size = b->size;
    e->seq = MT_META_SEQ(meta);
    e->thread = MT_META_THREAD(meta);
    e->alloc_site = b->site;
    e->free_site = b->free_site;
    e->changed = changed;
    e->offset = (int64_t)first;
    e->extent = last + 1;
    return true;
}

/* Looks for writes after free in a quarantined block; fills e when there are some. The
 * common case, an intact fill, is one quick pass over the block. */
static inline bool check_freed(const mt_block_t *b, uint32_t site, mt_error_t *e)
{
    if (MT_LIKELY(
            mt_pattern_intact((const unsigned char *)mt_block_addr(b), b->size, MT_FREE_FILL_BYTE)))
        return false;
    return describe_freed(b, site, e);
}

/* ---- blocks given back to the C library: the notes (a second free finds them below) ---- */

static MT_NOINLINE struct mt_gone *gone_make(mt_shard_t *s)
{
    return s->gone = mt_mem_calloc(1, sizeof *s->gone);
}

/* The shard's first note: the ring is made. Out of line, so that the notes after it save
 * no registers for the call. */
static MT_NOINLINE void gone_first_locked(mt_shard_t *s, const mt_block_t *b)
{
    struct mt_gone *g = gone_make(s);
    if (g != NULL) /* (out of the tracker's memory: the block is just not remembered) */
        mt_gone_put(g, b);
}

/* Inline in the eviction loop, which calls it for every block it releases. */
static inline __attribute__((always_inline)) void gone_note_locked(mt_shard_t *s,
                                                                   const mt_block_t *b)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    struct mt_gone *g = s->gone;
    if (MT_LIKELY(g != NULL))
        mt_gone_put(g, b);
    else
        gone_first_locked(s, b);
}

void mt_gone_note_locked(mt_shard_t *s, const mt_block_t *b)
{
    gone_note_locked(s, b);
}

void mt_gone_drop_locked(mt_shard_t *s, mt_block_t *b)
{
    gone_note_locked(s, b);
    mt_table_drop_locked(s, b);
}

/* The one eviction loop: releases the oldest non-pending blocks while the shard holds more
 * than `budget`, describing blocks written after free in errs; stops when errs is full.
 * *released adds the bytes given back. Returns how many errors it found. Inline in
 * mt_quarantine_hold_locked, which every free into the quarantine calls. */
static inline __attribute__((always_inline)) size_t evict_locked(mt_shard_t *s, size_t budget,
                                                                 uint32_t site, mt_error_t *errs,
                                                                 size_t max, size_t *released)
{
    size_t found = 0;
    while (s->quarantine_bytes > budget && found < max) {
        mt_block_t *b = mt_quarantine_take_oldest_locked(s);
        if (b == NULL)
            break; /* empty, or its thread is still filling it: a later free evicts it */
        uint64_t meta = mt_meta_load(b);
        /* (the front once, for the cost and the C library's pointer: the calls between
         * would make the compiler work it out twice) */
        size_t front = mt_block_front(MT_META_ALIGN_SHIFT(meta));
        size_t cost = mt_quarantine_cost_front(front, b->size);
        MT_ASSERT(s->quarantine_bytes >= cost); /* the byte count never goes negative */
        s->quarantine_bytes -= cost;
        *released += b->size;
        if (mt_fill_freed && !(meta & MT_META_FLAG_REPORTED) && check_freed(b, site, &errs[found]))
            found++;
        gone_note_locked(s, b);
        mt_libc_free((unsigned char *)mt_block_addr(b) - front); /* (b is recycled already) */
    }
    return found;
}

size_t mt_quarantine_hold_locked(mt_shard_t *s, mt_block_t *b, size_t budget, uint32_t site,
                                 mt_error_t *errs)
{
    if (!put_locked(s, b, budget))
        return MT_NOT_HELD;
    size_t released = 0;
    return evict_locked(s, budget, site, errs, MT_EVICT_REPORTS, &released);
}

/* The freed fill and the count of bytes never written in one pass, over the bytes the
 * new-block fill reached (out of line: option unwritten is rare, and the common free path
 * saves no registers for it). */
static MT_NOINLINE void fill_counting(unsigned char *user, const mt_block_t *copy)
{
    size_t filled = mt_fill_new_span(copy->size);
    size_t unwritten = mt_fill_counting(user, filled, MT_FREE_FILL_BYTE, MT_ALLOC_FILL_BYTE);
    memset(user + filled, MT_FREE_FILL_BYTE, copy->size - filled);
    mt_unwritten_add(copy->site, filled, unwritten);
}

void mt_quarantine_fill_and_publish(mt_block_t *b, const mt_block_t *copy)
{
    unsigned char *user = (unsigned char *)mt_block_addr(copy);
    if (mt_fill_freed) {
        if (mt_unwritten_counts(copy)) {
            fill_counting(user, copy);
        } else {
            memset(user, MT_FREE_FILL_BYTE, copy->size);
        }
    } else if (mt_unwritten_counts(copy)) {
        mt_unwritten_count_block(copy);
    }
    /* Release: whoever sees the flag clear (under the shard lock) sees the fill too. While
     * the block is pending only this thread writes its meta, so a plain store will do: the
     * value put_locked left, without the pending flag. */
    __atomic_store_n(&b->meta,
                     (copy->meta & ~(MT_META_FLAG_REPORTED | MT_META_FLAG_PENDING)) |
                         MT_META_FLAG_FREED,
                     __ATOMIC_RELEASE);
}

/* ---- walks over every shard: checks and draining -------------------------------------- */

typedef struct walk_ctx {
    uint32_t site;
    int damaged;
} walk_ctx_t;

static void check_one(mt_shard_t *s, mt_block_t *b, void *ctx)
{
    walk_ctx_t *c = ctx;
    mt_error_t e;
    (void)s;
    uint64_t meta = mt_meta_load(b);
    if ((meta & MT_META_FLAG_PENDING) || !mt_fill_freed)
        return;
    if (meta & MT_META_FLAG_REPORTED) {
        c->damaged++; /* still damaged; reported once */
        return;
    }
    if (check_freed(b, c->site, &e)) {
        __atomic_fetch_or(&b->meta, MT_META_FLAG_REPORTED, __ATOMIC_RELAXED);
        c->damaged++;
        mt_error_report(&e);
    }
}

int mt_quarantine_check_all(uint32_t site)
{
    walk_ctx_t c = {site, 0};
    mt_busy++;
    mt_quarantine_foreach(check_one, &c);
    mt_busy--;
    return c.damaged;
}

size_t mt_quarantine_drain(uint32_t site)
{
    size_t released = 0;
    mt_busy++;
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        size_t found;
        do { /* everything goes, reported a batch at a time once the lock is released */
            mt_error_t errs[MT_EVICT_REPORTS];
            mt_lock(&s->lock);
            found = evict_locked(s, 0, site, errs, MT_EVICT_REPORTS, &released);
            mt_unlock(&s->lock);
            for (size_t k = 0; k < found; k++)
                mt_error_report(&errs[k]);
        } while (found == MT_EVICT_REPORTS);
    }
    mt_busy--;
    return released;
}

/* ---- a second free of a block given back ---------------------------------------------- */

bool mt_gone_find(const void *ptr, mt_block_t *out)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    bool found = false;
    mt_lock(&s->lock);
    const struct mt_gone *g = s->gone;
    for (unsigned k = 1; g != NULL && k <= MT_GONE_MAX && !found; k++) { /* newest first */
        const mt_gone_entry_t *e = &g->ring[(g->next - k) & (MT_GONE_MAX - 1)];
        if (e->addr == 0 || e->addr != (uintptr_t)ptr)
            continue;
        memset(out, 0, sizeof *out);
        mt_block_set_addr(out, e->addr);
        out->size = e->size;
        out->meta = e->meta & ~(MT_META_FLAG_PENDING | MT_META_FLAG_REPORTED | MT_META_FLAG_FREED);
        out->site = e->site;
        out->free_site = e->free_site;
        found = true;
    }
    mt_unlock(&s->lock);
    return found;
}
