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
 * a number (never dereferenced), so a record is uthash's handle plus 24 bytes.
 *
 * Records live here, outside the user's memory, in slabs from the tracker's own mappings
 * (base/memory.c): an
 * overrun of a user block cannot reach them. Sixteen shards, chosen by the 64 MiB region
 * of the address, each have their own lock, records and table.
 *
 * Each shard's hash holds its quarantined blocks too (freed, held back: quarantine.c): a
 * freed record stays where it was, flagged MT_META_FLAG_FREED, so the one lookup a free does
 * tells a live block from a second free. The quarantine's order is a FIFO of record
 * pointers per shard, oldest first; a record leaves the hash when it leaves the FIFO. The
 * FIFO is a queue of 4 KiB segments, not one array that doubles: its memory grows with what
 * the quarantine holds and is never copied (a doubling array briefly holds three times its
 * entries, which a process out of address space may not have).
 *
 * uthash frees a hash's table when its last record goes and makes it again (1024 buckets,
 * a 16 KiB memset) on the next insert: a thread that allocated and freed one block at a
 * time paid that at every pair. So each shard's hash starts with a record of its own, the
 * anchor (key 0, flagged freed, in no FIFO), which never leaves: the table is made once.
 * It is also the head of uthash's insertion-order list for good, so a removal never moves
 * the head.
 */
#include <string.h>

#include "base/memory.h"
#include "base/options.h"
#include "records/site.h"
#include "base/output.h"
#include "records/table.h"

/* uthash allocates from the tracker's own memory (memory.c, through storage_alloc below),
 * and its failures are recoverable: every function that adds to a hash declares
 * `bool mt_hash_oom = false;` and checks it. This is the only file that includes uthash.h. */
static void *storage_alloc(size_t size);
#define uthash_malloc(sz) storage_alloc(sz)
#define uthash_free(ptr, sz) mt_mem_free(ptr)
/* uthash clears what it has just allocated, and only that: storage_alloc returns it zeroed
 * already, without writing (faulting in) a new table's pages that are fresh from the kernel. */
#define uthash_bzero(a, n) ((void)0)
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (mt_hash_oom = true)
#include <uthash.h>

/* uthash expands these where they are used, so redefining them after uthash.h is enough. */
#undef HASH_FUNCTION
#undef HASH_KEYCMP
#undef HASH_TO_BKT
#undef HASH_INITIAL_NUM_BUCKETS
#undef HASH_INITIAL_NUM_BUCKETS_LOG2
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = (unsigned)((uintptr_t)(keyptr) >> 4))
#define HASH_KEYCMP(a, b, n) ((a) != (b))
#define HASH_TO_BKT(hashv, num_bkts, bkt) ((bkt) = bucket_index((hashv), (num_bkts)))
/* The paper's 1024 buckets at start (uthash's own default is 32); fewer on bare metal
 * (table.h). */
#define HASH_INITIAL_NUM_BUCKETS MT_TABLE_INITIAL_BUCKETS
#define HASH_INITIAL_NUM_BUCKETS_LOG2 MT_TABLE_INITIAL_BUCKETS_LOG2
_Static_assert(MT_TABLE_INITIAL_BUCKETS == 1u << MT_TABLE_INITIAL_BUCKETS_LOG2, "log2 of buckets");

/* The table's view of a record: mt_block_t with uthash's handle in place of its link. */
typedef struct MT_MAY_ALIAS record {
    UT_hash_handle hh;
    size_t size;
    uint64_t meta;
    uint32_t site;
    uint32_t free_site;
} record_t;

_Static_assert(sizeof(record_t) == sizeof(mt_block_t), "mt_block_t mirrors record_t");
_Static_assert(sizeof(UT_hash_handle) == sizeof(mt_table_link_t), "the link is uthash's handle");
_Static_assert(offsetof(UT_hash_handle, key) == offsetof(mt_table_link_t, key),
               "the key lies where uthash keeps it");
/* The handle is a record's first field in every hash of this file, so uthash's offset of
 * it (tbl->hho) is 0: its conversions between a record and its handle need not load it. */
_Static_assert(offsetof(record_t, hh) == 0, "the handle starts the record");
#undef ELMT_FROM_HH
#undef HH_FROM_ELMT
#define ELMT_FROM_HH(tbl, hhp) ((void)(tbl), (void *)(hhp))
#define HH_FROM_ELMT(tbl, elp) ((void)(tbl), (UT_hash_handle *)(void *)(elp))
/* Every record's key is an address, added with keylen sizeof(uintptr_t), and its hash a
 * function of it: the key alone tells a record (uthash compares the hash and the key's
 * length first, the same answer in two more tests a record visited). */
#undef HASH_FIND_IN_BKT
#define HASH_FIND_IN_BKT(tbl, hh, head, keyptr, keylen_in, hashval, out)                           \
    do {                                                                                           \
        UT_hash_handle *hh_ = (head).hh_head;                                                      \
        while (hh_ != NULL && HASH_KEYCMP(hh_->key, keyptr, keylen_in))                            \
            hh_ = hh_->hh_next;                                                                    \
        DECLTYPE_ASSIGN(out, ELMT_FROM_HH(tbl, hh_));                                              \
    } while (0)

/* table.h's inline lookup, unlink and append read and write uthash's table, bucket and
 * handle through views laid out as they are. */
_Static_assert(offsetof(UT_hash_table, buckets) == offsetof(mt_table_view_t, buckets) &&
                   offsetof(UT_hash_table, num_buckets) == offsetof(mt_table_view_t, num_buckets) &&
                   offsetof(UT_hash_table, log2_num_buckets) ==
                       offsetof(mt_table_view_t, log2_num_buckets) &&
                   offsetof(UT_hash_table, num_items) == offsetof(mt_table_view_t, num_items) &&
                   offsetof(UT_hash_table, tail) == offsetof(mt_table_view_t, tail) &&
                   offsetof(UT_hash_table, noexpand) == offsetof(mt_table_view_t, noexpand),
               "table.h's view of uthash's table");
_Static_assert(sizeof(UT_hash_bucket) == sizeof(mt_table_view_bucket_t) &&
                   offsetof(UT_hash_bucket, hh_head) == offsetof(mt_table_view_bucket_t, head) &&
                   offsetof(UT_hash_bucket, count) == offsetof(mt_table_view_bucket_t, count) &&
                   offsetof(UT_hash_bucket, expand_mult) ==
                       offsetof(mt_table_view_bucket_t, expand_mult),
               "table.h's view of uthash's bucket");
_Static_assert(offsetof(UT_hash_handle, tbl) == offsetof(mt_table_link_t, table_private[0]) &&
                   offsetof(UT_hash_handle, prev) == offsetof(mt_table_link_t, table_private[1]) &&
                   offsetof(UT_hash_handle, next) == offsetof(mt_table_link_t, table_private[2]) &&
                   offsetof(UT_hash_handle, hh_prev) ==
                       offsetof(mt_table_link_t, table_private[3]) &&
                   offsetof(UT_hash_handle, hh_next) ==
                       offsetof(mt_table_link_t, table_private[4]) &&
                   offsetof(UT_hash_handle, hashv) == offsetof(mt_table_link_t, table_hashv),
               "table.h's view of uthash's handle");
_Static_assert(offsetof(record_t, size) == offsetof(mt_block_t, size) &&
                   offsetof(record_t, free_site) == offsetof(mt_block_t, free_site),
               "the fields after the link lie alike");

static inline record_t *rec(mt_block_t *b)
{
    return (record_t *)(void *)b;
}

/* Record storage (slabs, and the hashes' tables and buckets) comes from here, so the test
 * option test_fail_storage can make it fail: an allocation whose record cannot be stored
 * must fail cleanly. */
static atomic_size_t storage_allocations;

static void *storage_alloc(size_t size)
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

/* (Rounded up to the record's alignment: 32-bit ARM aligns uint64_t to 8, i686 to 4.) */
#define MT_RECORD_BYTES (sizeof(UT_hash_handle) + sizeof(size_t) + 16)
_Static_assert(sizeof(mt_block_t) == (MT_RECORD_BYTES + _Alignof(mt_block_t) - 1) /
                                         _Alignof(mt_block_t) * _Alignof(mt_block_t),
               "a record is uthash's handle and 24 bytes (20 on 32-bit targets): keep it small");
_Static_assert(sizeof(mt_shard_t) % 64 == 0, "shards do not share cache lines");

static inline unsigned bucket_index(unsigned hashv, unsigned buckets)
{
    if (buckets <= MT_TABLE_PAPER_BUCKETS)
        return hashv & (buckets - 1); /* the original design's index */
    unsigned log2 = (unsigned)__builtin_ctz(buckets);
    return (unsigned)((hashv * 0x9E3779B1u) >> (32 - log2));
}

/* bucket_index for a table as it is: past the paper's buckets by the log2 of their count,
 * which uthash keeps with it, so that no zeros are counted (and the shift's 32 - log2 is
 * -log2, as x86 shifts mod 32): two instructions less in a lookup and an unlink, 2 fewer a
 * pair in the inline append. One definition, table.h's, for the inline paths too. */
static inline unsigned table_bucket(unsigned hashv, const UT_hash_table *tbl)
{
    return mt_table_view_bucket((const mt_table_view_t *)(const void *)tbl, hashv);
}

unsigned mt_table_bucket_of(uintptr_t addr, unsigned buckets)
{
    unsigned hashv, bkt;
    HASH_FUNCTION(addr, sizeof addr, hashv);
    HASH_TO_BKT(hashv, buckets, bkt);
    return bkt;
}

/* ---- records ------------------------------------------------------------------------- */

/* One 64 KiB block of memory.c, header included; on bare metal 1 KiB (18 records of 56
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
        mt_block_t *slab = storage_alloc(bytes);
        if (slab == NULL)
            return NULL;
        s->slab_next = slab;
        s->slab_left = bytes / sizeof(mt_block_t);
        s->records_made += s->slab_left;
    }
    s->slab_left--;
    return s->slab_next++;
}

/* A recycled record first (the common case). */
static inline __attribute__((always_inline)) mt_block_t *record_new_locked(mt_shard_t *s)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    mt_block_t *b = s->free_records;
    if (MT_LIKELY(b != NULL)) {
        s->free_records = (mt_block_t *)rec(b)->hh.next;
        return b;
    }
    return record_from_slab_locked(s);
}

mt_block_t *mt_record_new_locked(mt_shard_t *s)
{
    return record_new_locked(s);
}

/* ---- the table ----------------------------------------------------------------------- */

/* The hashes of a shard, as uthash's heads.
 *
 * uthash doubles the buckets as the last step of an add (HASH_ADD_TO_BKT), and on failure
 * takes the record out again. Here the add only notes that the doubling is due, and
 * expand_after_add does it, with uthash's own macros, right after: the same steps in the
 * same order, but out of line, so that the add inline in every allocation is a leaf
 * that saves no registers for a branch taken a few times in a table's life. */

/* The doubling hash_add_deferred left due: uthash's HASH_EXPAND_BUCKETS (its own macro,
 * before it is replaced below), and when that cannot allocate, the rest of HASH_ADD_TO_BKT
 * and HASH_ADD_TO_TABLE's undoing (a failed doubling changed nothing). False then. */
static MT_NOINLINE bool expand_after_add(void **head, mt_block_t *b)
{
    record_t *h = *head, *r = rec(b);
    UT_hash_table *tbl = h->hh.tbl;
    int oomed = 0;
    HASH_EXPAND_BUCKETS(hh, tbl, oomed);
    if (!oomed)
        return true;
    unsigned bkt;
    HASH_TO_BKT(r->hh.hashv, tbl->num_buckets, bkt);
    HASH_DEL_IN_BKT(tbl->buckets[bkt], &r->hh);
    HASH_ROLLBACK_BKT(hh, h, &r->hh);
    HASH_DELETE_HH(hh, h, &r->hh);
    r->hh.tbl = NULL;
    *head = h;
    return false;
}

#undef HASH_EXPAND_BUCKETS
#define HASH_EXPAND_BUCKETS(hh, tbl, oomed) (expand_due = true)

enum { ADD_DONE, ADD_FAILED, ADD_EXPAND_DUE };

static inline __attribute__((always_inline)) int hash_add_deferred(void **head, mt_block_t *b)
{
    bool mt_hash_oom = false, expand_due = false;
    record_t *h = *head, *r = rec(b);
    HASH_ADD_KEYPTR(hh, h, r->hh.key, sizeof(uintptr_t), r);
    *head = h;
    return mt_hash_oom ? ADD_FAILED : expand_due ? ADD_EXPAND_DUE : ADD_DONE;
}

static inline __attribute__((always_inline)) bool hash_add(void **head, mt_block_t *b)
{
    int added = hash_add_deferred(head, b);
    if (MT_UNLIKELY(added == ADD_EXPAND_DUE))
        return expand_after_add(head, b);
    return added == ADD_DONE;
}

/* HASH_FIND in a hash that exists: table.h's walk, the one every lookup makes. */
static inline __attribute__((always_inline)) mt_block_t *hash_find(void *head, uintptr_t addr)
{
    mt_table_view_bucket_t *bucket;
    return mt_table_view_find(head, addr, &bucket);
}

static inline __attribute__((always_inline)) void hash_delete(void **head, mt_block_t *b)
{
    record_t *h = *head, *r = rec(b);
    HASH_DELETE(hh, h, r);
    *head = h;
}

/* Calls fn for every record of a hash, in insertion order. */
#define HASH_EACH(head, b, code)                                                                   \
    do {                                                                                           \
        record_t *h_ = (head), *r_, *next_;                                                        \
        HASH_ITER(hh, h_, r_, next_)                                                               \
        {                                                                                          \
            mt_block_t *b = (mt_block_t *)(void *)r_;                                              \
            if (MT_UNLIKELY(mt_table_key_wild(b->link.key))) { /* a wild write: skip it */         \
                mt_table_wild_link(b->link.key);                                                   \
            } else {                                                                               \
                code;                                                                              \
            }                                                                                      \
            if (MT_UNLIKELY(mt_table_link_wild(next_))) { /* the rest cannot be reached */         \
                mt_table_wild_link(next_);                                                         \
                break;                                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* A shard's first block: the anchor goes first (once per shard, out of line). */
static MT_NOINLINE bool first_insert_locked(mt_shard_t *s, mt_block_t *b)
{
    mt_block_set_addr(&s->anchor, 0);
    s->anchor.meta = MT_META_FLAG_FREED;
    if (!hash_add(&s->live, &s->anchor))
        return false;
    return hash_add(&s->live, b);
}

/* Inserts b, but leaves a doubling that falls due to the caller (ADD_EXPAND_DUE: see
 * hash_add_deferred). */
static inline __attribute__((always_inline)) int insert_deferred_locked(mt_shard_t *s,
                                                                        mt_block_t *b)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    /* one record per address: a block cannot start where a live or quarantined one does */
    MT_ASSERT(s->live == NULL || hash_find(s->live, mt_block_addr(b)) == NULL);
    if (MT_UNLIKELY(s->live == NULL))
        return first_insert_locked(s, b) ? ADD_DONE : ADD_FAILED;
    return hash_add_deferred(&s->live, b);
}

bool mt_table_insert_locked(mt_shard_t *s, mt_block_t *b)
{
    int added = insert_deferred_locked(s, b);
    if (MT_UNLIKELY(added == ADD_EXPAND_DUE))
        return expand_after_add(&s->live, b);
    return added == ADD_DONE;
}

/* (table.h's inline append tests the chain's length as uthash does) */
_Static_assert(MT_TABLE_CHAIN_EXPAND == HASH_BKT_CAPACITY_THRESH, "uthash's chain threshold");

/* The doubling the inline append left due; then the unlock. */
MT_NOINLINE bool mt_table_track_expand(mt_shard_t *s, mt_block_t *b)
{
    bool ok = expand_after_add(&s->live, b);
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
    int added = insert_deferred_locked(s, b);
    if (MT_UNLIKELY(added == ADD_EXPAND_DUE))
        return mt_table_track_expand(s, b);
    if (MT_UNLIKELY(added == ADD_FAILED)) {
        /* No table could be made: b, the slab's newest (no record was recycled into a shard
         * without its table), goes back to the slab, so that the recycled records stay those
         * of a shard whose table is made, which the inline track assumes. */
        MT_ASSERT(s->live == NULL && b + 1 == s->slab_next);
        s->slab_next--;
        s->slab_left++;
    }
    mt_unlock(&s->lock);
    return added == ADD_DONE;
}

bool mt_table_track(uintptr_t user, size_t size, uint64_t meta, uint32_t site)
{
    return mt_table_track_inline(user, size, meta, site);
}

mt_block_t *mt_table_lookup_locked(mt_shard_t *s, uintptr_t addr)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    /* (the anchor's key is 0, where no block starts: only 0 would find it) */
    if (MT_UNLIKELY(s->live == NULL || addr == 0))
        return NULL;
    return hash_find(s->live, addr);
}

mt_block_t *mt_table_find_locked(mt_shard_t *s, uintptr_t addr)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    if (MT_UNLIKELY(s->live == NULL))
        return NULL;
    mt_block_t *b = hash_find(s->live, addr); /* the anchor is flagged freed */
    return b != NULL && !(mt_meta_load(b) & MT_META_FLAG_FREED) ? b : NULL;
}

static inline __attribute__((always_inline)) void remove_locked(mt_shard_t *s, mt_block_t *b)
{
    MT_ASSERT(mt_lock_held(&s->lock));
    MT_ASSERT(b != &s->anchor);
    hash_delete(&s->live, b);
    MT_ASSERT(s->live == &s->anchor); /* the head never moves: the table is kept */
}

void mt_table_remove_locked(mt_shard_t *s, mt_block_t *b)
{
    remove_locked(s, b);
}

/* table.h's inline drop for a record with one before it in uthash's list, its bucket found
 * from its hash (the free's drop has it from its lookup). */
static inline __attribute__((always_inline)) void drop_after_anchor_locked(mt_shard_t *s,
                                                                           mt_block_t *b)
{
    MT_ASSERT(s->live == &s->anchor);
    UT_hash_table *tbl = rec(b)->hh.tbl;
    mt_table_drop_inline_locked(
        s, b, (mt_table_view_bucket_t *)&tbl->buckets[table_bucket(rec(b)->hh.hashv, tbl)]);
}

/* mt_table_drop_locked's rare case, out of line: remove_locked, then the recycling. */
static MT_NOINLINE void drop_slow_locked(mt_shard_t *s, mt_block_t *b)
{
    remove_locked(s, b);
    mt_record_recycle_locked(s, b);
}

void mt_table_drop_locked(mt_shard_t *s, mt_block_t *b)
{
    /* A record after the anchor always has one before it in uthash's list, so its delete
     * never frees the table: with that known here (uthash's own test, made first), the
     * delete inline below calls nothing and saves no registers. */
    if (MT_UNLIKELY(rec(b)->hh.prev == NULL)) {
        drop_slow_locked(s, b);
        return;
    }
    drop_after_anchor_locked(s, b);
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

atomic_uint mt_shards_skipped;

/* Takes a shard's lock; in the crash handler only tries (the crashed thread, or one that
 * is stopped forever now, may hold it). */
static bool lock_for_walk(mt_shard_t *s)
{
    if (MT_LIKELY(!mt_in_crash)) {
        mt_lock(&s->lock);
        return true;
    }
    if (mt_trylock(&s->lock))
        return true;
    atomic_fetch_add(&mt_shards_skipped, 1);
    return false;
}

void mt_table_foreach(void (*fn)(mt_block_t *b, void *ctx), void *ctx)
{
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        if (!lock_for_walk(s))
            continue;
        HASH_EACH(s->live, b, if (!(mt_meta_load(b) & MT_META_FLAG_FREED)) fn(b, ctx));
        mt_unlock(&s->lock);
    }
}

bool mt_table_empty(void)
{
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        mt_lock(&s->lock);
        record_t *live_hash = s->live;
        size_t records = HASH_COUNT(live_hash); /* the anchor and quarantined blocks too */
        size_t live = records != 0 ? records - 1 - s->fifo_count : 0;
        mt_unlock(&s->lock);
        if (live != 0)
            return false;
    }
    return true;
}

/* ---- the quarantine's FIFO: the freed records of a shard, oldest first ---------------- */

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
    else if ((seg = storage_alloc(sizeof *seg)) == NULL)
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
    /* (the call below is the function's last act: the common case saves no registers; a
     * quarantined record is never the anchor, which is in no FIFO: it has one before it) */
    drop_after_anchor_locked(s, b);                /* (recycled: only the link changes) */
    if (MT_UNLIKELY(s->fifo_head == FIFO_ENTRIES)) /* the oldest segment is used up */
        return segment_done_locked(s, b);
    return b;
}

void mt_quarantine_foreach(void (*fn)(mt_shard_t *s, mt_block_t *b, void *ctx), void *ctx)
{
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        if (!lock_for_walk(s))
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

void mt_table_lock_all(void)
{
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++)
        mt_lock(&mt_shards[i].lock);
}

void mt_table_unlock_all(void)
{
    for (unsigned i = MT_SHARD_COUNT; i-- > 0;)
        mt_unlock(&mt_shards[i].lock);
}

void mt_table_shape(mt_table_shape_t *out)
{
    double visits = 0;
    size_t records = 0; /* in the hashes: live, quarantined, anchors */
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        mt_lock(&s->lock);
        if (s->live != NULL) {
            UT_hash_table *t = ((record_t *)s->live)->hh.tbl;
            records += t->num_items;
            out->items += t->num_items - 1 - s->fifo_count;
            out->buckets += t->num_buckets;
            out->noexpand_shards += t->noexpand ? 1u : 0u;
            for (unsigned k = 0; k < t->num_buckets; k++) {
                size_t c = t->buckets[k].count;
                if (c > out->max_chain)
                    out->max_chain = c;
                visits += (double)c * (double)(c + 1) / 2.0;
            }
        }
        mt_unlock(&s->lock);
    }
    out->mean_visits = records > 0 ? visits / (double)records : 0.0;
}

void mt_table_storage(const mt_shard_t *s, const void **table, const void **buckets)
{
    const record_t *head = s->live;
    *table = head != NULL ? (const void *)head->hh.tbl : NULL;
    *buckets = head != NULL ? (const void *)head->hh.tbl->buckets : NULL;
}
