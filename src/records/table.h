/* table.h - live blocks in a doubly linked hash keyed on the user address (records, shards).
 */
#ifndef MT_TABLE_H
#define MT_TABLE_H

#include "base/lock.h"
#include "base/platform.h"
#include "records/site.h"
#include "records/table_fast.h"

/* Where a record's meta lies: in the handle when pointers have 64 bits (table_fast.h). */
#define MT_META_IN_HANDLE (UINTPTR_MAX > 0xffffffffu)

/* One block's record, outside the block: one cache line (64 bytes) on 64-bit targets, where
 * a lookup, an add and an unlink each touch a record once. */
typedef struct mt_block {
    union {
        /* uthash's handle: its bucket chain, its key (the user address itself, which saves a
         * field) and hash. In the free list of records, hh.hh_next links them. */
        UT_hash_handle hh;
        /* The handle's slots for uthash's insertion-order list, which this table does not
         * keep: the record's own fields lie there (table_fast.h). */
        struct {
            void *in_handle_tbl_;
            size_t size; /* requested size */
#if MT_META_IN_HANDLE
            uint64_t meta; /* sequence number, thread, alignment, flags: see MT_META_* */
#endif
        };
    };
#if !MT_META_IN_HANDLE
    uint64_t meta;
#endif
    uint32_t site;      /* where it was allocated (or last reallocated) */
    uint32_t free_site; /* where it was released (blocks in quarantine) */
} mt_block_t;

/* The address the user sees, the block's key. */
static inline uintptr_t mt_block_addr(const mt_block_t *b)
{
    return (uintptr_t)b->hh.key;
}

static inline void mt_block_set_addr(mt_block_t *b, uintptr_t addr)
{
    b->hh.key = (const void *)addr;
}

/* A new live block's record, before it joins the table. */
static inline void mt_block_start(mt_block_t *b, uintptr_t addr, size_t size, uint64_t meta,
                                  uint32_t site)
{
    mt_block_set_addr(b, addr);
    b->size = size;
    b->meta = meta;
    b->site = site;
    b->free_site = MT_SITE_NONE;
}

#define MT_SEQ_BITS 38
#define MT_META_SEQ(m) ((m) & ((UINT64_C(1) << MT_SEQ_BITS) - 1))
/* Made inside a system library (records/site.h, mt_site_system): not the program's block,
 * so it has no sequence number (0) and its counts are kept apart (records/stats.c). A bit
 * of its own, so that the free's one test of the flags finds it (api/free.c). */
#define MT_META_FLAG_SYSTEM (UINT64_C(1) << 38)
#define MT_META_THREAD(m) ((unsigned)(((m) >> 40) & 0xffffu))
#define MT_META_ALIGN_SHIFT(m) ((unsigned)(((m) >> 56) & 0x1fu)) /* alignments to 2^31 */
/* Freed and held in the quarantine: the record stays in the table, so the lookup that finds
 * a live block finds a second free too. */
#define MT_META_FLAG_FREED (UINT64_C(1) << 39)
#define MT_META_FLAG_REPORTED (UINT64_C(1) << 62) /* its damage was reported */
#define MT_META_FLAG_OWNED (UINT64_C(1) << 63)    /* a pool's, an arena's or a registrar's */
/* In quarantine, still being checked and filled by the thread that freed it: nobody else
 * may check or release it yet. Cleared with an atomic store; read with mt_meta_load(). */
#define MT_META_FLAG_PENDING (UINT64_C(1) << 61)
#define MT_META_MAKE(seq, thread, align_shift)                                                     \
    (((uint64_t)(seq) & ((UINT64_C(1) << MT_SEQ_BITS) - 1)) |                                      \
     ((uint64_t)((thread)&0xffffu) << 40) | ((uint64_t)((align_shift)&0x1fu) << 56))

/* Reads a record's meta, which the freeing thread may still change (MT_META_FLAG_PENDING). */
static inline uint64_t mt_meta_load(const mt_block_t *b)
{
    return __atomic_load_n(&b->meta, __ATOMIC_ACQUIRE);
}

#define MT_SHARD_COUNT 16u
/* Buckets a shard's table starts with: the paper's 1024 (12-24 KiB); on bare metal 64
 * (768 bytes), indexed by the paper's rule with fewer bits, (address >> 4) & 63, and
 * doubled by uthash as blocks come, so a table of 1024 is exactly the paper's. */
#define MT_TABLE_INITIAL_BUCKETS MT_SMALL(MT_TABLE_PAPER_BUCKETS, 64u)
#define MT_TABLE_INITIAL_BUCKETS_LOG2 MT_SMALL(10u, 6u)
_Static_assert(MT_TABLE_INITIAL_BUCKETS == 1u << MT_TABLE_INITIAL_BUCKETS_LOG2, "log2 of buckets");

typedef struct mt_shard {
    mt_lock_t lock;
    UT_hash_table *table;     /* uthash's table of the shard's blocks, live and quarantined
                                 (table.c); made at the first, then kept */
    mt_block_t *free_records; /* records ready for reuse, linked through hh.hh_next */
    mt_block_t *slab_next;    /* the newest slab's records not yet used: slab_left of them */
    size_t slab_left;
    size_t records_made;
    /* The quarantine's FIFO (table_fifo.c): records of freed blocks, still in the hash with
     * MT_META_FLAG_FREED, in the order they were freed, in a queue of fixed segments: the
     * oldest at fifo_first->entry[fifo_head], the next one goes to fifo_last at fifo_tail. */
    struct mt_fifo_segment *fifo_first, *fifo_last, *fifo_spare;
    unsigned fifo_head, fifo_tail;
    size_t fifo_count;
    struct mt_gone *gone;    /* the last blocks given back to the C library (quarantine.c) */
    size_t quarantine_bytes; /* what the FIFO's blocks hold (mt_quarantine_cost of each); not
                                next to fifo_count, which gcc would add to in one vector */
} __attribute__((aligned(MT_SMALL(256, 64)))) mt_shard_t;
/* (shards do not share cache lines; hosted, a shard is 256 bytes, a power of two, so that
 * mt_shard_of finds its address by one shift of its index) */

extern MT_HIDDEN mt_shard_t mt_shards[MT_SHARD_COUNT];

/* The shard that owns an address: blocks of one glibc arena (64 MiB aligned heaps, one
 * per thread) fall in one shard, so threads rarely wait on each other's locks. */
static inline mt_shard_t *mt_shard_of(uintptr_t addr)
{
    uint64_t region = (uint64_t)addr >> 26;
    region *= UINT64_C(0x9E3779B97F4A7C15);
    return &mt_shards[region >> 60];
}

/* The bucket uthash uses for addr in a shard of `buckets` buckets (a power of two). */
unsigned mt_table_bucket_of(uintptr_t addr, unsigned buckets);

mt_block_t *mt_record_new_locked(mt_shard_t *s);
/* A record given back to its shard's list of recycled ones (linked through hh.hh_next, which
 * nothing reads once it is out of its bucket: its other fields stay as they were). Only
 * into a shard whose table is made (mt_table_track_inline takes the table as there).
 * Inline: the free's and the quarantine's drops call nothing. */
static inline __attribute__((always_inline)) void mt_record_recycle_locked(mt_shard_t *s,
                                                                           mt_block_t *b)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    MT_ASSERT(s->table != NULL);
    b->hh.hh_next = (UT_hash_handle *)(void *)s->free_records;
    s->free_records = b;
}
/* Returns false (and recycles nothing) when the table could not be made. */
bool mt_table_insert_locked(mt_shard_t *s, mt_block_t *b);
/* Records a new live block (takes its shard's lock); false when there is no room. */
bool mt_table_track(uintptr_t user, size_t size, uint64_t meta, uint32_t site);
/* The live block that starts at addr, or NULL. Twins (a registered block at the start of
 * the chunk it was carved from: two records keyed alike, one owned) give the chunk's. */
mt_block_t *mt_table_find_locked(mt_shard_t *s, uintptr_t addr);
/* The block that starts at addr, live or in quarantine (MT_META_FLAG_FREED), or NULL: one
 * lookup for a free, which a second free finds the same way. Of twins, the chunk's. */
mt_block_t *mt_table_lookup_locked(mt_shard_t *s, uintptr_t addr);
/* The owned block (pool object, arena allocation, registered block) that starts at addr,
 * or NULL: of twins, the registered one. */
mt_block_t *mt_table_find_owned_locked(mt_shard_t *s, uintptr_t addr);
/* The record after b in its chain that has b's address (b's twin, when b came first), or
 * NULL. The inline lookup gives whichever twin its chain holds first. */
mt_block_t *mt_table_twin_locked(const mt_block_t *b);
/* True when b, not yet in the table, would clash: a record of its side (owned or not)
 * already has its address. For the invariant's assertion. */
bool mt_table_twin_clash_locked(mt_shard_t *s, const mt_block_t *b);

/* The record keyed addr in a shard's table, or NULL: uthash's HASH_FIND_IN_BKT in the bucket
 * of addr's hash, which it leaves in *bucket (table_fast.h). */
static inline __attribute__((always_inline)) mt_block_t *
mt_table_find_in(const UT_hash_table *tbl, uintptr_t addr, UT_hash_bucket **bucket)
{
    unsigned hashv;
    HASH_VALUE((const void *)addr, sizeof addr, hashv);
    *bucket = mt_uthash_bucket(tbl, hashv);
    return (mt_block_t *)(void *)mt_uthash_find_in_bucket(*bucket, (const void *)addr);
}
/* mt_table_lookup_locked inline. A record found, *bucket is its bucket, for an unlink that
 * follows under the same lock (mt_table_drop_inline_locked). */
static inline mt_block_t *mt_table_lookup_bucket_locked(mt_shard_t *s, uintptr_t addr,
                                                        UT_hash_bucket **bucket)
{
    const UT_hash_table *tbl = s->table;
    if (MT_UNLIKELY(tbl == NULL))
        return NULL;
    return mt_table_find_in(tbl, addr, bucket);
}
void mt_table_remove_locked(mt_shard_t *s, mt_block_t *b);
/* mt_table_remove_locked, then mt_record_recycle_locked, in one call. */
void mt_table_drop_locked(mt_shard_t *s, mt_block_t *b);
/* mt_table_drop_locked inline, for b found in bucket by mt_table_lookup_bucket_locked:
 * unlinked and recycled calling nothing. */
static inline __attribute__((always_inline)) void
mt_table_drop_inline_locked(mt_shard_t *s, mt_block_t *b, UT_hash_bucket *bucket)
{
    MT_ASSERT(mt_lock_held(&s->lock) && b->hh.tbl == s->table);
    mt_uthash_unlink(s->table, bucket, &b->hh);
    mt_record_recycle_locked(s, b);
}
/* The same for a record whose bucket its lookup did not give: from its hash. */
static inline __attribute__((always_inline)) void mt_table_drop_hashed_locked(mt_shard_t *s,
                                                                              mt_block_t *b)
{
    mt_table_drop_inline_locked(s, b, mt_uthash_bucket(s->table, b->hh.hashv));
}
/* The quarantine's FIFO (quarantine.c keeps the budget). insert marks the live block b
 * freed and pending (damage reported while it was live says nothing about writes after
 * free: that flag is cleared), leaves it in the hash, queues it and counts its cost in
 * quarantine_bytes; false (b unchanged) when the FIFO cannot grow. */
bool mt_quarantine_insert_locked(mt_shard_t *s, mt_block_t *b, size_t cost);
mt_block_t *mt_quarantine_find_locked(mt_shard_t *s, uintptr_t addr);
/* Takes the oldest block in quarantine out of the FIFO and the hash, recycles its record
 * and returns it: its fields stay as they were until the shard's next record is made,
 * which needs the lock the caller holds. NULL when there is none, or when it is still
 * pending (MT_META_FLAG_PENDING: it stays). */
mt_block_t *mt_quarantine_take_oldest_locked(mt_shard_t *s);
/* Calls fn for every live block, shard by shard, each under its lock; fn must not add
 * or remove blocks. Within a shard the order is the buckets' (not the allocations'). In the
 * crash handler (mt_in_crash) a shard whose lock is taken is skipped and counted. */
void mt_table_foreach(void (*fn)(mt_block_t *b, void *ctx), void *ctx);
/* True when no block is live (none tracked, owned or registered); takes each shard's lock. */
bool mt_table_empty(void);
/* The same for the blocks in quarantine, oldest first (pending ones included: see
 * MT_META_FLAG_PENDING); fn must not add or remove blocks. */
void mt_quarantine_foreach(void (*fn)(mt_shard_t *s, mt_block_t *b, void *ctx), void *ctx);
/* Shards the crash handler found locked and skipped. */
extern atomic_uint mt_shards_skipped;
/* Takes a shard's lock for a walk; in the crash handler only tries (the crashed thread, or
 * one that is stopped forever now, may hold it), and counts a shard skipped. */
bool mt_table_lock_for_walk(mt_shard_t *s);
void mt_table_lock_all(void);
void mt_table_unlock_all(void);
/* Table shape, for tests and the benchmark. */
typedef struct mt_table_shape {
    size_t items, buckets, max_chain;
    size_t noexpand_shards; /* shards where uthash stopped expanding */
    double mean_visits;     /* mean records visited to find a live block */
} mt_table_shape_t;
void mt_table_shape(mt_table_shape_t *out);
/* Where a shard's hash keeps its table and buckets (NULL when empty), for tests. */
void mt_table_storage(const mt_shard_t *s, const void **table, const void **buckets);

/* ---- an allocation's record, inline ---------------------------------------------------- */

/* mt_table_track_inline's rare ways (table.c): the whole track when the lock is taken by
 * another thread (locked false) or when no record is recycled (locked true: a shard without
 * its table has none); and the doubling due after b's append (false when it could not be
 * made: b is then taken out). Both unlock. */
bool mt_table_track_slow(mt_shard_t *s, bool locked, uintptr_t user, size_t size, uint64_t meta,
                         uint32_t site);
bool mt_table_track_expand(mt_shard_t *s, mt_block_t *b);

/* mt_table_track, inline in the allocation's entry point: its common case calls nothing
 * before the unlock (a recycled record added to its shard's table, uthash's HASH_ADD_TO_BKT's
 * steps in table_fast.h, its doubling left to mt_table_track_expand), so the allocation
 * saves no registers for a second call. */
static inline __attribute__((always_inline)) bool
mt_table_track_inline(uintptr_t user, size_t size, uint64_t meta, uint32_t site)
{
    mt_shard_t *s = mt_shard_of(user);
    if (MT_UNLIKELY(!mt_lock_unless_taken(&s->lock)))
        return mt_table_track_slow(s, false, user, size, meta, site);
    /* (a record is recycled only into a shard whose table is made: no test of the table;
     * its head read before the record's stores) */
    mt_block_t *b = s->free_records;
    UT_hash_table *tbl = s->table;
    if (MT_UNLIKELY(b == NULL))
        return mt_table_track_slow(s, true, user, size, meta, site);
    mt_block_t *next = (mt_block_t *)(void *)b->hh.hh_next;
    s->free_records = next;
    /* The next allocation's record, loaded now: records come back in bursts (a collection
     * frees thousands) and leave last-in first, so the one a pair takes was often recycled
     * long before and is a cache miss, which this overlaps with the rest of the pair. (A
     * prefetch of NULL, the list's end, does nothing.) */
    __builtin_prefetch(next, 1);
    mt_block_start(b, user, size, meta, site);
    /* one record per address and side (as insert_locked) */
    MT_ASSERT(!mt_table_twin_clash_locked(s, b));
    /* the handle's hash (keylen, which uthash's lookup compares, is set once for good when
     * the record leaves its slab) */
    HASH_VALUE(b->hh.key, sizeof user, b->hh.hashv);
    if (MT_UNLIKELY(mt_uthash_add(tbl, &b->hh)))
        return mt_table_track_expand(s, b);
    mt_unlock(&s->lock);
    return true;
}

#endif /* MT_TABLE_H */
