/* table_fast.h - uthash for the table of blocks, and the steps of its macros that every
 * allocation and free take inline.
 *
 * The table (records/table.c) is uthash, from Debian's uthash-dev, used through its public
 * macros and its documented hooks, which are set below before uthash.h is included; this is
 * the one file that includes it. Two things reach past those, and they live here alone,
 * below the fence:
 *   - The bucket index. uthash takes a bucket from the low bits of the hash (HASH_TO_BKT)
 *     and has no hook for another rule. The paper's index is those low bits at 1024
 *     buckets; but blocks of one size lie at a fixed stride, and once the table has grown,
 *     the low bits would fill one bucket in eight and make uthash stop growing (its
 *     "ineffective expansion" rule). So past 1024 buckets the index mixes all the bits of
 *     the hash (Fibonacci hashing), and HASH_TO_BKT is redefined to it, so that uthash's
 *     own doubling (HASH_EXPAND_BUCKETS) puts records where the inline steps look.
 *   - The table's making, at the paper's 1024 buckets, and the inline steps of an allocation
 *     and a free: uthash's macros would call out (its doubling) where the hot path calls
 *     nothing while it holds the shard's lock, and would test what a record's place already
 *     answers.
 *
 * The table is kept through uthash's bucket-level macros (HASH_ADD_TO_BKT, HASH_DEL_IN_BKT,
 * HASH_FIND_IN_BKT, HASH_EXPAND_BUCKETS), without its insertion-order list: walks go bucket
 * by bucket (records/table_walk.c). The list cost a free two more cache lines (the
 * neighbours in allocation order, written at every removal) and an allocation one (the
 * tail). None of those macros, nor the steps below, reads or writes a handle's prev and next
 * (the list's links), so a record keeps its own fields there: 64 bytes, one cache line, on
 * 64-bit targets (records/table.h; the differential test checks that they stay as they are).
 *
 * Each step below names the macros it mirrors. They were checked against uthash 2.3.0
 * (Debian's uthash-dev 2.3.0-1): the build stops on any other version, and
 * test/unit/table_fast_test.c drives one random sequence of inserts, deletes and lookups
 * through these steps and through uthash's own macros and compares the tables they leave
 * (bucket count, each bucket's chain, the items, the list, uthash's expansion state).
 */
#ifndef MT_TABLE_FAST_H
#define MT_TABLE_FAST_H

#include "base/memory.h"
#include "base/platform.h"

/* ---- uthash's documented hooks ---------------------------------------------------------- */

/* Its tables and buckets come from the tracker's own memory (records/table.c, which the
 * test option test_fail_storage can make fail), zeroed already: uthash's clearing of what it
 * has just allocated would only fault in a new table's pages, fresh from the kernel. A
 * failure is recoverable: every caller of a macro that allocates checks its `oomed`. */
void *mt_table_storage_alloc(size_t size);
#define uthash_malloc(sz) mt_table_storage_alloc(sz)
#define uthash_free(ptr, sz) mt_mem_free(ptr)
#define uthash_bzero(a, n) ((void)0)
#define HASH_NONFATAL_OOM 1
/* The key is the user address itself, held in the handle's key pointer and compared as a
 * number, never dereferenced; its hash is the paper's address >> 4, whole, so that uthash
 * has bits to spread into when it doubles the buckets. */
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = (unsigned)((uintptr_t)(keyptr) >> 4))
#define HASH_KEYCMP(a, b, n) ((a) != (b))
#include <uthash.h>

/* ==== the fence: below, what reaches past uthash's hooks ================================= */

#define MT_UTHASH_STR_(v) #v
#define MT_UTHASH_STR(v) MT_UTHASH_STR_(v)
/* (UTHASH_VERSION is 2.3.0, a token the preprocessor cannot compare: hence a static assert
 * and not #error. A new version may change the macros mirrored here: read them again, run
 * the differential test, and change this line.) */
_Static_assert(__builtin_strcmp(MT_UTHASH_STR(UTHASH_VERSION), "2.3.0") == 0,
               "records/table_fast.h mirrors uthash 2.3.0's macros: check it against this one");

/* The paper's table: 1024 buckets indexed (address >> 4) & 1023. */
#define MT_TABLE_PAPER_BUCKETS 1024u

/* The bucket of a hash in a table of `buckets` buckets, 2^log2: the paper's low bits up to
 * its 1024, then the top log2 bits of the hash times 2^32 / golden ratio. (The shift's
 * 32 - log2 is -log2 mod 32, as x86 shifts count: one instruction less.) */
static inline unsigned mt_table_index(unsigned hashv, unsigned buckets, unsigned log2)
{
    if (buckets <= MT_TABLE_PAPER_BUCKETS)
        return hashv & (buckets - 1u); /* the original design's index */
    return (unsigned)((hashv * 0x9E3779B1u) >> ((32u - log2) & 31u));
}

/* uthash's HASH_TO_BKT, to the index above: its doubling and every macro that finds a
 * bucket use it. */
#undef HASH_TO_BKT
#define HASH_TO_BKT(hashv, num_bkts, bkt)                                                          \
    do {                                                                                           \
        (bkt) = mt_table_index((hashv), (num_bkts), (unsigned)__builtin_ctz(num_bkts));            \
    } while (0)

/* The bucket of hashv in tbl, with the log2 of the count that uthash keeps beside it. */
static inline UT_hash_bucket *mt_uthash_bucket(const UT_hash_table *tbl, unsigned hashv)
{
    return &tbl->buckets[mt_table_index(hashv, tbl->num_buckets, tbl->log2_num_buckets)];
}

/* The steps below take a record and its handle for one address: the handle starts every
 * record of the table (uthash's hho is 0). */

/* HASH_MAKE_TABLE, with 2^log2 buckets where uthash has HASH_INITIAL_NUM_BUCKETS (32, not a
 * hook): the paper's table is made at its size at once, rather than made at 32 and doubled
 * five times (five more blocks of the tracker's memory, a few more pages that a process
 * which makes one block touches). A table without uthash's insertion-order list (its records
 * are in their buckets only): no head, no tail. NULL (nothing made) when there is no memory
 * for it. */
static inline UT_hash_table *mt_uthash_make_table(unsigned log2)
{
    UT_hash_table *tbl = uthash_malloc(sizeof(UT_hash_table));
    if (tbl == NULL)
        return NULL;
    uthash_bzero(tbl, sizeof(UT_hash_table));
    tbl->tail = NULL;
    tbl->num_buckets = 1u << log2;
    tbl->log2_num_buckets = log2;
    tbl->hho = 0;
    tbl->buckets = uthash_malloc(tbl->num_buckets * sizeof(struct UT_hash_bucket));
    tbl->signature = HASH_SIGNATURE;
    if (tbl->buckets == NULL) {
        uthash_free(tbl, sizeof(UT_hash_table));
        return NULL;
    }
    uthash_bzero(tbl->buckets, tbl->num_buckets * sizeof(struct UT_hash_bucket));
    return tbl;
}

/* HASH_FIND_IN_BKT, in a table whose keys all have one length (an address) and whose hashes
 * are a function of the key: uthash compares a visited record's hash and key length before
 * its key, the same answer in two more tests, and finds a record from its handle by hho, 0
 * here. */
/* A link a wild write has overwritten: records are aligned as their handle (8 bytes on
 * 64-bit targets, 4 on i686) and, on 64-bit targets, lie in the low half of the address
 * space (bytes a program writes, 0x41..., 0xCD..., 0xDD..., are neither). Cheap enough for
 * every step of a chain. */
static inline bool mt_table_link_wild(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    return (v & (_Alignof(UT_hash_handle) - 1u)) != 0 || (sizeof v >= 8 && (uint64_t)v >> 56 != 0);
}
/* A key a wild write has overwritten: a block's address, of any alignment (a page-guarded
 * block ends at its page to the byte), but in the low half of the address space. */
static inline bool mt_table_key_wild(const void *key)
{
    return sizeof(uintptr_t) >= 8 && (uint64_t)(uintptr_t)key >> 56 != 0;
}
/* Says once that a chain holds a wild link (out of line: never on the common path); the
 * lookup then ends there, as if the block were not in the table (table_walk.c). */
MT_NOINLINE void mt_table_wild_link(const void *link);

static inline __attribute__((always_inline)) UT_hash_handle *
mt_uthash_find_in_bucket(const UT_hash_bucket *bucket, const void *key)
{
    UT_hash_handle *hh = bucket->hh_head;
    while (hh != NULL && HASH_KEYCMP(hh->key, key, sizeof key)) {
        hh = hh->hh_next;
        if (MT_UNLIKELY(mt_table_link_wild(hh))) {
            mt_table_wild_link(hh);
            return NULL;
        }
    }
    return hh;
}

/* The tracker's own rule for doubling, beside uthash's: more records than
 * MT_TABLE_MAX_LOAD a bucket. uthash doubles only when one chain reaches ten records, which
 * leaves one to two records a bucket on average, and at a few hundred thousand blocks each
 * record a lookup walks past is a cache miss; at one a bucket a lookup visits 1.25 to 1.5.
 * Not where uthash has stopped doubling (noexpand: hashes that collide, which more buckets
 * would not spread). The doubling itself is uthash's HASH_EXPAND_BUCKETS. On bare metal four:
 * RAM is short there, and most Cortex-M cores have no data cache for a chain to miss in. */
#define MT_TABLE_MAX_LOAD MT_SMALL(1u, 4u)
static inline bool mt_table_overloaded(const UT_hash_table *tbl)
{
    return tbl->num_items > tbl->num_buckets * MT_TABLE_MAX_LOAD && !tbl->noexpand;
}

/* HASH_ADD_TO_TABLE's count and HASH_ADD_TO_BKT, for a handle whose key, keylen and hashv
 * are set, all but HASH_ADD_TO_BKT's doubling: returns true when it would double the buckets
 * now, or when the table is overloaded (above), which the caller then has uthash's own
 * HASH_EXPAND_BUCKETS do (out of line, so that the common add is a leaf). HASH_BLOOM and
 * HASH_EMIT_KEYS are not set: their steps are empty. (No HASH_APPEND_LIST: the table keeps
 * no insertion-order list.) */
static inline __attribute__((always_inline)) bool mt_uthash_add(UT_hash_table *tbl,
                                                                UT_hash_handle *hh)
{
    /* (the bucket found before the stores, which the compiler cannot tell apart from hh's) */
    UT_hash_bucket *bucket = mt_uthash_bucket(tbl, hh->hashv);
    hh->tbl = tbl;
    unsigned items = ++tbl->num_items;
    UT_hash_handle *chain = bucket->hh_head;
    unsigned count = ++bucket->count;
    hh->hh_next = chain;
    hh->hh_prev = NULL;
    if (chain != NULL)
        chain->hh_prev = hh;
    bucket->hh_head = hh;
    /* (a chain under HASH_BKT_CAPACITY_THRESH never calls for uthash's doubling, nor a table
     * under its load for the tracker's: both tested first) */
    if (MT_LIKELY(count < HASH_BKT_CAPACITY_THRESH) &&
        MT_LIKELY(items <= tbl->num_buckets * MT_TABLE_MAX_LOAD))
        return false;
    return (count >= (bucket->expand_mult + 1u) * HASH_BKT_CAPACITY_THRESH && !tbl->noexpand) ||
           mt_table_overloaded(tbl);
}

/* HASH_DEL_IN_BKT, for a handle found in bucket, and HASH_DELETE_HH's count (no list to
 * patch up, and a table that is kept: nothing is freed). A handle heads its chain exactly
 * when none is before it there (uthash compares the head). */
static inline __attribute__((always_inline)) void
mt_uthash_unlink(UT_hash_table *tbl, UT_hash_bucket *bucket, UT_hash_handle *hh)
{
    UT_hash_handle *chain_prev = hh->hh_prev, *chain_next = hh->hh_next;
    MT_ASSERT((bucket->hh_head == hh) == (chain_prev == NULL));
    bucket->count--;
    if (chain_prev == NULL)
        bucket->hh_head = chain_next;
    else
        chain_prev->hh_next = chain_next;
    if (chain_next != NULL)
        chain_next->hh_prev = chain_prev;
    tbl->num_items--;
}

#endif /* MT_TABLE_FAST_H */
