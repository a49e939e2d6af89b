/* table.c - live blocks in a doubly linked hash keyed on the address the user sees.
 *
 * This is the table of the hash-based debug memory manager memtrack grew from (Zhou, Wu
 * and Wan, 2006: see src/README.md), built on uthash: each shard starts with 1024 buckets and the
 * paper's index, (address >> 4) & 1023. The hash value handed to uthash is the whole
 * (address >> 4), not just its low 10 bits, so uthash can double the buckets as the table
 * fills and chains stay short at ten million blocks (a 10-bit hash would leave uthash
 * nothing to spread into and it would stop expanding).
 *
 * Past 1024 buckets the bucket index mixes all the bits of the hash (Fibonacci hashing)
 * instead of taking the low ones. Blocks of one size sit at a fixed stride: 80-byte
 * blocks with their guards are 128-byte chunks, so (address >> 4) moves in steps of 8 and
 * its low bits would fill one bucket in 8; uthash would then find its expansions
 * ineffective and stop expanding. The paper's index keeps that cost at 1024 buckets (its
 * table, measured as is by `make bench`); a grown table does not.
 *
 * On bare metal (a microcontroller's RAM) a shard starts with 64 buckets, the paper's
 * index with its low 6 bits, which uthash doubles as blocks come (a chain past 10 records)
 * to the paper's 1024 and then on as elsewhere: lookups and reports are the same, and a
 * firmware with a few dozen blocks pays 768 bytes of buckets instead of 12 KiB. (Below
 * 1024 uthash may stop expanding sooner on blocks at a fixed stride, as the paper's table
 * would: chains then grow past 10 records, a cost in time only.)
 *
 * The key is the user address itself, stored in the handle's key pointer and compared as
 * a number (never dereferenced), so a record is uthash's handle plus 24 bytes. uthash is
 * used through its macros and hooks, set in table_fast.h, which also holds the bucket
 * index and the inline steps of an allocation and a free (the one place that reaches past
 * uthash's hooks, checked against its version and tested against its own macros).
 *
 * Records live here, outside the user's memory, in slabs from the tracker's own mappings
 * (base/memory.c): an
 * overrun of a user block cannot reach them. Sixteen shards, chosen by the 64 MiB region
 * of the address, each have their own lock, records and table.
 *
 * Each shard's hash holds its quarantined blocks too (freed, held back: quarantine.c): a
 * freed record stays where it was, flagged MT_META_FLAG_FREED, so the one lookup a free does
 * tells a live block from a second free. The quarantine's order is a FIFO of record
 * pointers per shard, oldest first (table_fifo.c); a record leaves the hash when it leaves
 * the FIFO. Walks of every block, for reports and checks, are in table_walk.c.
 *
 * The table is kept through uthash's bucket-level macros, without its insertion-order list
 * (table_fast.h): made once, at a shard's first block, it is never freed, even when its last
 * block goes (uthash's HASH_DELETE would free it then, and a thread that allocated and freed
 * one block at a time would pay for a new table at every pair).
 */
#include <string.h>

#include "base/options.h"
#include "base/output.h"
#include "records/table.h"

/* The handle starts the record, so uthash's offset of it (tbl->hho) is 0, which the inline
 * steps of table_fast.h take as known. */
_Static_assert(offsetof(mt_block_t, hh) == 0, "the handle starts the record");

/* Record storage (slabs, and the hashes' tables and buckets) comes from here, so the test
 * option test_fail_storage can make it fail: an allocation whose record cannot be stored
 * must fail cleanly. */
static atomic_size_t storage_allocations;

void *mt_table_storage_alloc(size_t size)
{
    size_t fail_from = mt_opt.test_fail_storage;
    if (MT_UNLIKELY(fail_from != 0) && atomic_fetch_add(&storage_allocations, 1) + 1 >= fail_from)
        return NULL;
    return mt_mem_calloc(1, size);
}

mt_shard_t mt_shards[MT_SHARD_COUNT] = {
#define SHARD_INIT                                                                                 \
    {                                                                                              \
        .lock = MT_LOCK_INIT                                                                       \
    }
    SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT,
    SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT,
#undef SHARD_INIT
};

/* A record's own fields in the handle's slots for the insertion-order list (prev, next),
 * which uthash's bucket-level macros leave alone (table_fast.h). */
_Static_assert(offsetof(mt_block_t, size) == offsetof(UT_hash_handle, prev) &&
                   (!MT_META_IN_HANDLE ||
                    offsetof(mt_block_t, meta) == offsetof(UT_hash_handle, next)),
               "size and meta lie in the handle's list links");
/* A record is uthash's handle and 8 bytes (16 on 32-bit targets: meta), rounded up to the
 * record's alignment (32-bit ARM aligns uint64_t to 8, i686 to 4): keep it small. */
#define MT_RECORD_BYTES (sizeof(UT_hash_handle) + (MT_META_IN_HANDLE ? 8 : 16))
_Static_assert(sizeof(mt_block_t) == (MT_RECORD_BYTES + _Alignof(mt_block_t) - 1) /
                                         _Alignof(mt_block_t) * _Alignof(mt_block_t),
               "a record is uthash's handle and its own 8 or 16 bytes");
/* One cache line a record where it is 64 bytes: records start at a multiple of 64 in a slab. */
#define RECORD_ALIGN (sizeof(mt_block_t) == 64 ? 64u : 1u)
_Static_assert(sizeof(mt_shard_t) % 64 == 0, "shards do not share cache lines");

unsigned mt_table_bucket_of(uintptr_t addr, unsigned buckets)
{
    unsigned hashv, bkt;
    HASH_VALUE((const void *)addr, sizeof addr, hashv);
    HASH_TO_BKT(hashv, buckets, bkt);
    return bkt;
}

/* ---- records ------------------------------------------------------------------------- */

/* One 64 KiB block of memory.c, header included; on bare metal 1 KiB (21 records of 48
 * bytes), so a program with a few blocks does not pay for a thousand. */
#define SLAB_BYTES (MT_SMALL(65536u, 1024u) - 16u)
/* A shard's first slab is one page: a process that makes a few blocks faults in no more
 * (on bare metal as the others: 1 KiB). */
#define FIRST_SLAB_BYTES (MT_SMALL(4096u, 1024u) - 16u)

/* A fresh record from the newest slab, or a new slab; NULL when there is no room. */
static MT_NOINLINE mt_block_t *record_from_slab_locked(mt_shard_t *s)
{
    /* Then the untouched rest of the newest slab, one record at a time, so a short-lived
     * process faults in only the records it uses. Slabs are never returned. */
    if (s->slab_left == 0) {
        size_t bytes = s->records_made == 0 ? FIRST_SLAB_BYTES : SLAB_BYTES;
        unsigned char *slab = mt_table_storage_alloc(bytes);
        if (slab == NULL)
            return NULL;
        size_t skip = (RECORD_ALIGN - (uintptr_t)slab % RECORD_ALIGN) % RECORD_ALIGN;
        s->slab_next = (mt_block_t *)(void *)(slab + skip);
        s->slab_left = (bytes - skip) / sizeof(mt_block_t);
        s->records_made += s->slab_left;
    }
    s->slab_left--;
    mt_block_t *b = s->slab_next++;
    /* Every key is an address: its length, which uthash's lookup compares, is set once. */
    b->hh.keylen = sizeof(uintptr_t);
    return b;
}

/* A recycled record first (the common case). */
static inline __attribute__((always_inline)) mt_block_t *record_new_locked(mt_shard_t *s)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    mt_block_t *b = s->free_records;
    if (MT_LIKELY(b != NULL)) {
        s->free_records = (mt_block_t *)(void *)b->hh.hh_next;
        return b;
    }
    return record_from_slab_locked(s);
}

mt_block_t *mt_record_new_locked(mt_shard_t *s)
{
    return record_new_locked(s);
}

/* ---- the table ----------------------------------------------------------------------- */

/* A shard's table, made once, at its first block, with the paper's 1024 buckets. False,
 * with nothing made, when there is no memory for it. */
static MT_NOINLINE bool make_table_locked(mt_shard_t *s)
{
    s->table = mt_uthash_make_table(MT_TABLE_INITIAL_BUCKETS_LOG2);
    return s->table != NULL;
}

/* The doubling an add left due (mt_uthash_add's, or the tracker's load rule after uthash's
 * HASH_ADD_TO_BKT: table_fast.h): uthash's HASH_EXPAND_BUCKETS. When that cannot allocate
 * and uthash's own rule called for it (chain_due: a chain at its threshold), the rest of
 * HASH_ADD_TO_BKT (b out of its bucket) and the count taken back (a failed doubling changed
 * nothing): false then. The tracker's load rule alone is an optimisation: the table as it
 * is holds b, which stays (the next add past the load tries the doubling again). */
static MT_NOINLINE bool expand_after_add(mt_shard_t *s, mt_block_t *b, bool chain_due)
{
    UT_hash_table *tbl = s->table;
    int oomed = 0;
    HASH_EXPAND_BUCKETS(hh, tbl, oomed);
    if (!oomed || !chain_due)
        return true;
    HASH_DEL_IN_BKT(*mt_uthash_bucket(tbl, b->hh.hashv), &b->hh);
    tbl->num_items--;
    return false;
}

/* Inserts b, its key set, with uthash's own HASH_ADD_TO_BKT and HASH_ADD_TO_TABLE's count
 * (the table made first). False, b in no bucket, when there was no memory. */
static bool insert_locked(mt_shard_t *s, mt_block_t *b)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    /* one record per address and side: a block cannot start where a live or quarantined
     * one does, but a registered block may where its chunk does (twins) */
    MT_ASSERT(!mt_table_twin_clash_locked(s, b));
    if (MT_UNLIKELY(s->table == NULL) && !make_table_locked(s))
        return false;
    UT_hash_table *tbl = s->table;
    HASH_VALUE(b->hh.key, sizeof(uintptr_t), b->hh.hashv);
    b->hh.tbl = tbl;
    unsigned bkt;
    HASH_TO_BKT(b->hh.hashv, tbl->num_buckets, bkt);
    int oomed = 0;
    tbl->num_items++; /* (before the add: uthash's doubling counts the record in) */
    HASH_ADD_TO_BKT(tbl->buckets[bkt], hh, &b->hh, oomed);
    if (oomed) {
        tbl->num_items--;
        return false;
    }
    /* the tracker's doubling, as the inline add's (table_fast.h) */
    return !mt_table_overloaded(tbl) || expand_after_add(s, b, false);
}

bool mt_table_insert_locked(mt_shard_t *s, mt_block_t *b)
{
    return insert_locked(s, b);
}

/* The doubling the inline add left due; then the unlock. */
MT_NOINLINE bool mt_table_track_expand(mt_shard_t *s, mt_block_t *b)
{
    const UT_hash_bucket *bucket = mt_uthash_bucket(s->table, b->hh.hashv);
    bool chain_due = bucket->count >= (bucket->expand_mult + 1u) * HASH_BKT_CAPACITY_THRESH &&
                     !s->table->noexpand; /* (uthash's rule, as mt_uthash_add tests it) */
    bool ok = expand_after_add(s, b, chain_due);
    if (!ok)
        mt_record_recycle_locked(s, b);
    mt_unlock(&s->lock);
    return ok;
}

/* mt_table_track's body in full, with the lock held or (locked false) waited for: for the
 * rare cases kept out of the inline one (a lock taken, no recycled record, no table yet). */
MT_NOINLINE bool mt_table_track_slow(mt_shard_t *s, bool locked, uintptr_t user, size_t size,
                                     uint64_t meta, uint32_t site)
{
    if (!locked)
        mt_lock(&s->lock);
    mt_block_t *b = record_new_locked(s);
    if (MT_UNLIKELY(b == NULL)) {
        mt_unlock(&s->lock);
        return false;
    }
    mt_block_start(b, user, size, meta, site);
    bool added = insert_locked(s, b);
    if (MT_UNLIKELY(!added)) {
        if (s->table != NULL) {
            mt_record_recycle_locked(s, b);
        } else {
            /* No table could be made: b, the slab's newest (no record was recycled into a
             * shard without its table), goes back to the slab, so that the recycled records
             * stay those of a shard whose table is made, which the inline track assumes. */
            MT_ASSERT(b + 1 == s->slab_next);
            s->slab_next--;
            s->slab_left++;
        }
    }
    mt_unlock(&s->lock);
    return added;
}

bool mt_table_track(uintptr_t user, size_t size, uint64_t meta, uint32_t site)
{
    return mt_table_track_inline(user, size, meta, site);
}

/* The first record keyed addr, or NULL: HASH_FIND_IN_BKT in the bucket of HASH_TO_BKT, as
 * the inline lookup walks it (table_fast.h: each link checked, so a wild write into a record
 * ends the walk instead of faulting). */
static mt_block_t *find_first_locked(const mt_shard_t *s, uintptr_t addr)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    const UT_hash_table *tbl = s->table;
    if (MT_UNLIKELY(tbl == NULL))
        return NULL;
    unsigned hashv, bkt;
    HASH_VALUE((const void *)addr, sizeof addr, hashv);
    HASH_TO_BKT(hashv, tbl->num_buckets, bkt);
    return (mt_block_t *)(void *)mt_uthash_find_in_bucket(&tbl->buckets[bkt], (const void *)addr);
}

mt_block_t *mt_table_twin_locked(const mt_block_t *b)
{
    /* (the rest of b's chain, walked as a bucket is) */
    const UT_hash_bucket rest = {.hh_head = b->hh.hh_next};
    if (MT_UNLIKELY(mt_table_link_wild(rest.hh_head))) {
        mt_table_wild_link(rest.hh_head);
        return NULL;
    }
    return (mt_block_t *)(void *)mt_uthash_find_in_bucket(&rest, b->hh.key);
}

/* The record keyed addr (live only: none in quarantine), the program's block before a
 * registered one started in it (its twin), or NULL. A chain holds at most two records of
 * one address, so the walk past the first is short. */
static mt_block_t *find_locked(const mt_shard_t *s, uintptr_t addr, bool live_only)
{
    mt_block_t *owned = NULL;
    for (mt_block_t *b = find_first_locked(s, addr); b != NULL; b = mt_table_twin_locked(b)) {
        if (live_only && (mt_meta_load(b) & MT_META_FLAG_FREED))
            continue;
        if (!(b->meta & MT_META_FLAG_OWNED))
            return b;
        if (owned == NULL)
            owned = b;
    }
    return owned;
}

mt_block_t *mt_table_lookup_locked(mt_shard_t *s, uintptr_t addr)
{
    return find_locked(s, addr, false);
}

mt_block_t *mt_table_find_locked(mt_shard_t *s, uintptr_t addr)
{
    return find_locked(s, addr, true);
}

bool mt_table_twin_clash_locked(mt_shard_t *s, const mt_block_t *b)
{
    uintptr_t addr = mt_block_addr(b);
    if (b->meta & MT_META_FLAG_OWNED)
        return mt_table_find_owned_locked(s, addr) != NULL;
    mt_block_t *there = find_locked(s, addr, false);
    return there != NULL && !(there->meta & MT_META_FLAG_OWNED);
}

mt_block_t *mt_table_find_owned_locked(mt_shard_t *s, uintptr_t addr)
{
    mt_block_t *b = find_first_locked(s, addr);
    while (b != NULL && !(b->meta & MT_META_FLAG_OWNED))
        b = mt_table_twin_locked(b);
    return b;
}

void mt_table_remove_locked(mt_shard_t *s, mt_block_t *b)
{
    MT_ASSERT(mt_lock_held(&s->lock) && b->hh.tbl == s->table);
    UT_hash_table *tbl = s->table;
    unsigned bkt;
    HASH_TO_BKT(b->hh.hashv, tbl->num_buckets, bkt);
    HASH_DEL_IN_BKT(tbl->buckets[bkt], &b->hh);
    tbl->num_items--;
}

void mt_table_drop_locked(mt_shard_t *s, mt_block_t *b)
{
    mt_table_drop_hashed_locked(s, b);
}

void mt_table_wild_link(const void *link)
{
    static atomic_bool told;
    if (atomic_exchange(&told, true))
        return;
    mt_buf_t b; /* (the output's lock comes after the shards' in the lock order) */
    mt_buf_init(&b, mt_out_fd());
    mt_buf_line(&b);
    mt_buf_str(&b, "ERROR: memtrack's own records are damaged: a link in its table holds ");
    mt_buf_hex(&b, (uint64_t)(uintptr_t)link);
    mt_buf_str(&b, ", not a record (a wild write from the program into memtrack's memory); "
                   "the blocks past it are not found, and not released\n");
    mt_buf_flush(&b);
}
