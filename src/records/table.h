/* table.h - live blocks in a doubly linked hash keyed on the user address (records, shards).
 */
#ifndef MT_TABLE_H
#define MT_TABLE_H

#include "base/lock.h"
#include "base/platform.h"
#include "records/site.h"

/* A record's link fields in the table: uthash's handle, laid out exactly as uthash lays
 * it out (table.c checks), so that no file but table.c needs uthash.h. Above the table
 * only the key is read. */
typedef struct mt_table_link {
    void *table_private[5];
    const void *key; /* the user address, compared as a number (never dereferenced) */
    unsigned table_keylen, table_hashv;
} mt_table_link_t;

/* One block's record, outside the block. */
typedef struct mt_block {
    /* bucket chain and insertion-order list; link.key is the user address itself, which
     * saves a field. In the free list of records, the table links records through it. */
    mt_table_link_t link;
    size_t size;        /* requested size */
    uint64_t meta;      /* sequence number, thread, alignment, flags: see MT_META_* */
    uint32_t site;      /* where it was allocated (or last reallocated) */
    uint32_t free_site; /* where it was released (blocks in quarantine) */
} mt_block_t;

/* The address the user sees, the block's key. */
static inline uintptr_t mt_block_addr(const mt_block_t *b)
{
    return (uintptr_t)b->link.key;
}

static inline void mt_block_set_addr(mt_block_t *b, uintptr_t addr)
{
    b->link.key = (const void *)addr;
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
/* The paper's table: 1024 buckets indexed (address >> 4) & 1023 (table.c). */
#define MT_TABLE_PAPER_BUCKETS 1024u
/* Buckets a shard's table starts with: the paper's 1024 (12-24 KiB); on bare metal 64
 * (768 bytes), indexed by the paper's rule with fewer bits, (address >> 4) & 63, and
 * doubled by uthash as blocks come, so a table of 1024 is exactly the paper's. */
#define MT_TABLE_INITIAL_BUCKETS MT_SMALL(MT_TABLE_PAPER_BUCKETS, 64u)
#define MT_TABLE_INITIAL_BUCKETS_LOG2 MT_SMALL(10u, 6u)

typedef struct mt_shard {
    mt_lock_t lock;
    void *live; /* the hash of the shard's blocks, live and quarantined (table.c); once made,
                   it is kept: `anchor` is its first record and never leaves */
    mt_block_t *free_records; /* records ready for reuse, linked through their link */
    mt_block_t *slab_next;    /* the newest slab's records not yet used: slab_left of them */
    size_t slab_left;
    size_t records_made;
    /* The quarantine's FIFO (table.c): records of freed blocks, still in the hash with
     * MT_META_FLAG_FREED, in the order they were freed, in a queue of fixed segments: the
     * oldest at fifo_first->entry[fifo_head], the next one goes to fifo_last at fifo_tail. */
    struct mt_fifo_segment *fifo_first, *fifo_last, *fifo_spare;
    unsigned fifo_head, fifo_tail;
    size_t fifo_count;
    struct mt_gone *gone;    /* the last blocks given back to the C library (quarantine.c) */
    size_t quarantine_bytes; /* what the FIFO's blocks hold (mt_quarantine_cost of each); not
                                next to fifo_count, which gcc would add to in one vector */
    mt_block_t anchor;       /* keeps the hash's table when its last block goes (table.c) */
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
/* A record given back to its shard's list of recycled ones (linked through the handle's
 * next, table_private[2]). Only into a shard whose table is made (mt_table_track_inline
 * takes the table as there). Inline: the free's and the quarantine's drops call nothing. */
static inline __attribute__((always_inline)) void mt_record_recycle_locked(mt_shard_t *s,
                                                                           mt_block_t *b)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    MT_ASSERT(s->live != NULL);
    b->link.table_private[2] = s->free_records;
    s->free_records = b;
}
/* Returns false (and recycles nothing) when the table could not be made. */
bool mt_table_insert_locked(mt_shard_t *s, mt_block_t *b);
/* Records a new live block (takes its shard's lock); false when there is no room. */
bool mt_table_track(uintptr_t user, size_t size, uint64_t meta, uint32_t site);
/* The live block that starts at addr, or NULL. */
mt_block_t *mt_table_find_locked(mt_shard_t *s, uintptr_t addr);
/* The block that starts at addr, live or in quarantine (MT_META_FLAG_FREED), or NULL: one
 * lookup for a free, which a second free finds the same way. */
mt_block_t *mt_table_lookup_locked(mt_shard_t *s, uintptr_t addr);
/* uthash's table and bucket as table.c lays them out (it checks every field named here), so
 * that the lookup of every free, the unlink of a block given back and the append of every
 * allocation can be inline here without uthash.h. */
typedef struct MT_MAY_ALIAS mt_table_view_bucket {
    mt_table_link_t *head;
    unsigned count, expand_mult;
} mt_table_view_bucket_t;
typedef struct MT_MAY_ALIAS mt_table_view {
    mt_table_view_bucket_t *buckets;
    unsigned num_buckets, log2_num_buckets;
    unsigned num_items;
    mt_table_link_t *tail; /* the newest record's link */
    ptrdiff_t hho;
    unsigned ideal_chain_maxlen, nonideal_items, ineff_expands, noexpand;
} mt_table_view_t;
/* The bucket of a hash: table.c's table_bucket (the paper's index up to its bucket count, then
 * mixed; the log2 uthash keeps, so that no zeros are counted). */
static inline unsigned mt_table_view_bucket(const mt_table_view_t *tbl, unsigned hashv)
{
    if (tbl->num_buckets <= MT_TABLE_PAPER_BUCKETS)
        return hashv & (tbl->num_buckets - 1); /* the original design's index */
    return (unsigned)((hashv * 0x9E3779B1u) >> ((32u - tbl->log2_num_buckets) & 31u));
}
/* The record keyed addr in the hash whose head is `head` (not NULL), or NULL: its bucket
 * (table.c's hash function, the address >> 4, and table_bucket) in *bucket, and the walk of
 * that bucket's chain. Every lookup of the table is this one. */
/* A link a wild write has overwritten: records are aligned as their link (8 bytes on 64-bit
 * targets) and, on 64-bit targets, lie in the low half of the address space (bytes a
 * program writes, 0x41..., 0xCD..., 0xDD..., are neither). Cheap enough for every step of
 * a chain. */
static inline bool mt_table_link_wild(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    return (v & (_Alignof(mt_table_link_t) - 1u)) != 0 || (sizeof v >= 8 && (uint64_t)v >> 56 != 0);
}
/* A key a wild write has overwritten: a block's address, of any alignment (a page-guarded
 * block ends at its page to the byte), but in the low half of the address space. */
static inline bool mt_table_key_wild(const void *key)
{
    return sizeof(uintptr_t) >= 8 && (uint64_t)(uintptr_t)key >> 56 != 0;
}
/* Says once that a chain holds a wild link (out of line: never on the common path); the
 * lookup then ends there, as if the block were not in the table. */
MT_NOINLINE void mt_table_wild_link(const void *link);
static inline mt_block_t *mt_table_view_find(const mt_block_t *head, uintptr_t addr,
                                             mt_table_view_bucket_t **bucket)
{
    const mt_table_view_t *tbl = head->link.table_private[0];
    *bucket = &tbl->buckets[mt_table_view_bucket(tbl, (unsigned)(addr >> 4))];
    mt_table_link_t *h = (*bucket)->head;
    while (h != NULL && (uintptr_t)h->key != addr) {
        h = h->table_private[4]; /* the chain's next */
        if (MT_UNLIKELY(mt_table_link_wild(h))) {
            mt_table_wild_link(h);
            return NULL;
        }
    }
    return (mt_block_t *)(void *)h;
}
/* mt_table_lookup_locked inline, for an address that is not 0 (the anchor's). A record
 * found, *bucket is its bucket, for an unlink that follows under the same lock
 * (mt_table_drop_inline_locked). */
static inline mt_block_t *mt_table_lookup_nonzero_locked(mt_shard_t *s, uintptr_t addr,
                                                         mt_table_view_bucket_t **bucket)
{
    const mt_block_t *head = s->live;
    if (MT_UNLIKELY(head == NULL))
        return NULL;
    return mt_table_view_find(head, addr, bucket);
}
void mt_table_remove_locked(mt_shard_t *s, mt_block_t *b);
/* mt_table_remove_locked, then mt_record_recycle_locked, in one call. */
void mt_table_drop_locked(mt_shard_t *s, mt_block_t *b);
/* Takes b, found in bucket, out of the hash, for a record with one before it in uthash's
 * insertion-order list (every record but the anchor, which is first for good): uthash's
 * HASH_DELETE, the same steps and the same result, with the table in a register (the record's own
 * tbl, the head's) where uthash reloads it from the head after every store, and without the tests
 * that record's place answers (it is neither the head nor the only record; it heads its bucket's
 * chain exactly when nothing comes before it there). Calls nothing, so that its callers save
 * no registers for it. The handle's private fields: tbl, prev, next, hh_prev, hh_next (a
 * record starts with its handle, so a record and its handle are one address). */
static inline __attribute__((always_inline)) void
mt_table_unlink_after_anchor_locked(mt_block_t *b, mt_table_view_bucket_t *bucket)
{
    mt_table_link_t *hh = &b->link;
    mt_table_view_t *tbl = hh->table_private[0];
    mt_table_link_t *prev = hh->table_private[1], *next = hh->table_private[2];
    MT_ASSERT((tbl->tail == hh) == (next == NULL));
    if (tbl->tail == hh) /* (the tail, and only the tail, has no next) */
        tbl->tail = prev;
    else
        next->table_private[1] = prev;
    prev->table_private[2] = next;
    mt_table_link_t *chain_prev = hh->table_private[3], *chain_next = hh->table_private[4];
    bucket->count--;
    if (chain_prev == NULL)
        bucket->head = chain_next;
    else
        chain_prev->table_private[4] = chain_next;
    if (chain_next != NULL)
        chain_next->table_private[3] = chain_prev;
    tbl->num_items--;
}
/* mt_table_drop_locked inline, for b found in bucket by mt_table_lookup_nonzero_locked: never
 * the anchor (key 0, first in uthash's list for good), so a record with one before it, which
 * is unlinked and recycled calling nothing. */
static inline __attribute__((always_inline)) void
mt_table_drop_inline_locked(mt_shard_t *s, mt_block_t *b, mt_table_view_bucket_t *bucket)
{
    MT_ASSERT(mt_lock_held(&s->lock) && b != &s->anchor && b->link.table_private[1] != NULL);
    mt_table_unlink_after_anchor_locked(b, bucket);
    mt_record_recycle_locked(s, b);
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
 * or remove blocks. Within a shard the order is the allocations'. In the crash handler
 * (mt_in_crash) a shard whose lock is taken is skipped and counted. */
void mt_table_foreach(void (*fn)(mt_block_t *b, void *ctx), void *ctx);
/* True when no block is live (none tracked, owned or registered); takes each shard's lock. */
bool mt_table_empty(void);
/* The same for the blocks in quarantine, oldest first (pending ones included: see
 * MT_META_FLAG_PENDING); fn must not add or remove blocks. */
void mt_quarantine_foreach(void (*fn)(mt_shard_t *s, mt_block_t *b, void *ctx), void *ctx);
/* Shards the crash handler found locked and skipped. */
extern atomic_uint mt_shards_skipped;
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

/* A chain this long may call for a doubling (uthash's HASH_BKT_CAPACITY_THRESH). */
#define MT_TABLE_CHAIN_EXPAND 10u

/* mt_table_track_inline's rare ways (table.c): the whole track when the lock is taken by
 * another thread (locked false) or when no record is recycled (locked true: a shard without
 * its table has none); and the doubling due after b's append (false when it could not be
 * made: b is then taken out). Both unlock. */
bool mt_table_track_slow(mt_shard_t *s, bool locked, uintptr_t user, size_t size, uint64_t meta,
                         uint32_t site);
bool mt_table_track_expand(mt_shard_t *s, mt_block_t *b);

/* mt_table_track, inline in the allocation's entry point: its common case calls nothing
 * before the unlock (a recycled record appended to its shard's table, uthash's
 * HASH_ADD_KEYPTR's steps with the table in a register, its doubling left to
 * mt_table_track_expand), so the allocation saves no registers for a second call. */
static inline __attribute__((always_inline)) bool
mt_table_track_inline(uintptr_t user, size_t size, uint64_t meta, uint32_t site)
{
    mt_shard_t *s = mt_shard_of(user);
    if (MT_UNLIKELY(!mt_lock_unless_taken(&s->lock)))
        return mt_table_track_slow(s, false, user, size, meta, site);
    /* (a record is recycled only into a shard whose table is made: no test of the table;
     * its head read before the record's stores) */
    mt_block_t *b = s->free_records;
    const mt_block_t *live = s->live;
    if (MT_UNLIKELY(b == NULL))
        return mt_table_track_slow(s, true, user, size, meta, site);
    s->free_records = b->link.table_private[2]; /* the free list's next */
    mt_block_start(b, user, size, meta, site);
    /* one record per address (as insert_deferred_locked) */
    MT_ASSERT(mt_table_lookup_locked(s, user) == NULL);
    mt_table_view_t *tbl = live->link.table_private[0];
    /* the hash (table.c's HASH_FUNCTION); keylen left as it is: no lookup reads it */
    unsigned hashv = (unsigned)(user >> 4);
    b->link.table_hashv = hashv;
    b->link.table_private[0] = tbl;
    b->link.table_private[2] = NULL;      /* the insertion order's next */
    b->link.table_private[1] = tbl->tail; /* and its prev (the link starts the record) */
    tbl->tail->table_private[2] = b;
    tbl->tail = &b->link;
    tbl->num_items++;
    mt_table_view_bucket_t *bucket = &tbl->buckets[mt_table_view_bucket(tbl, hashv)];
    mt_table_link_t *chain = bucket->head;
    bucket->count++;
    b->link.table_private[4] = chain; /* the chain's next */
    b->link.table_private[3] = NULL;  /* and its prev */
    if (chain != NULL)
        chain->table_private[3] = &b->link;
    bucket->head = &b->link;
    /* (a chain under MT_TABLE_CHAIN_EXPAND never calls for a doubling: tested first) */
    if (MT_UNLIKELY(bucket->count >= MT_TABLE_CHAIN_EXPAND) &&
        bucket->count >= (bucket->expand_mult + 1u) * MT_TABLE_CHAIN_EXPAND && !tbl->noexpand)
        return mt_table_track_expand(s, b);
    mt_unlock(&s->lock);
    return true;
}

#endif /* MT_TABLE_H */
