/* table_fast_test.c - the table's inline steps (src/records/table_fast.h) against uthash's own
 * macros: one random sequence of inserts, deletes and lookups is run on two tables, one
 * through the fenced steps as the allocation and the free take them (their doubling left to
 * uthash's HASH_EXPAND_BUCKETS, as table.c does), the other through uthash's bucket-level
 * macros (HASH_ADD_TO_BKT with its own doubling, HASH_DEL_IN_BKT, HASH_FIND_IN_BKT, with
 * HASH_ADD_TO_TABLE's count); after each operation the two must be the same table: the bucket
 * count, each bucket's chain in order with its count and expand_mult, the items, and uthash's
 * expansion state (ideal chain length, non-ideal items, ineffective expansions, noexpand);
 * and the handles' list links, where records keep fields of their own, must be untouched. A
 * change in uthash's add, delete or expand logic, or in the steps that mirror them, shows
 * here. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "records/table_fast.h"

typedef struct item {
    UT_hash_handle hh; /* first, as in the tracker's records: hho is 0 */
    uintptr_t addr;
} item_t;

/* The fenced side's table, made as records/table.c makes a shard's: at the paper's 1024
 * buckets at once. */
static UT_hash_table *fast_make_table(void)
{
    UT_hash_table *tbl = mt_uthash_make_table(10);
    cr_assert_not_null(tbl);
    return tbl;
}

/* uthash's own: HASH_MAKE_TABLE (32 buckets, for a first record `head` that is never added:
 * the table keeps no list), doubled to 1024 by HASH_EXPAND_BUCKETS. */
static UT_hash_table *ref_make_table(item_t *head)
{
    int oomed = 0;
    HASH_MAKE_TABLE(hh, head, oomed);
    cr_assert_eq(oomed, 0);
    while (head->hh.tbl->num_buckets < MT_TABLE_PAPER_BUCKETS) {
        HASH_EXPAND_BUCKETS(hh, head->hh.tbl, oomed);
        cr_assert_eq(oomed, 0);
    }
    return head->hh.tbl;
}

/* What a record keeps in its handle's list links (records/table.h): the table never touches
 * them. */
#define OWN_PREV ((void *)(uintptr_t)0x5eed0001)
#define OWN_NEXT ((void *)(uintptr_t)0x5eed0002)

static void set_key(item_t *it)
{
    it->hh.prev = OWN_PREV;
    it->hh.next = OWN_NEXT;
    it->hh.key = (const void *)it->addr;
    it->hh.keylen = sizeof(uintptr_t);
    HASH_VALUE(it->hh.key, sizeof(uintptr_t), it->hh.hashv);
}

/* The allocation's insert: the key and hash set as mt_table_track_inline sets them (keylen
 * once, as a record leaves its slab), the inline add, and uthash's doubling when due. */
static void fast_insert(UT_hash_table *tbl, item_t *it)
{
    set_key(it);
    if (mt_uthash_add(tbl, &it->hh)) {
        int oomed = 0;
        HASH_EXPAND_BUCKETS(hh, tbl, oomed);
        cr_assert_eq(oomed, 0);
    }
}

/* HASH_ADD_TO_TABLE's count and bucket, HASH_ADD_TO_BKT (table.c's insert_locked). */
static void ref_insert(UT_hash_table *tbl, item_t *it)
{
    unsigned bkt;
    int oomed = 0;
    set_key(it);
    it->hh.tbl = tbl;
    tbl->num_items++;
    HASH_TO_BKT(it->hh.hashv, tbl->num_buckets, bkt);
    HASH_ADD_TO_BKT(tbl->buckets[bkt], hh, &it->hh, oomed);
    cr_assert_eq(oomed, 0);
    /* the tracker's rule, beside uthash's: a doubling past MT_TABLE_MAX_LOAD a bucket */
    if (tbl->num_items > tbl->num_buckets * MT_TABLE_MAX_LOAD && !tbl->noexpand) {
        HASH_EXPAND_BUCKETS(hh, tbl, oomed);
        cr_assert_eq(oomed, 0);
    }
}

static void ref_delete(UT_hash_table *tbl, item_t *it)
{
    unsigned bkt;
    HASH_TO_BKT(it->hh.hashv, tbl->num_buckets, bkt);
    HASH_DEL_IN_BKT(tbl->buckets[bkt], &it->hh);
    tbl->num_items--;
}

/* The free's lookup: its bucket, the walk of its chain. */
static item_t *fast_find(const UT_hash_table *tbl, uintptr_t addr, UT_hash_bucket **bucket)
{
    unsigned hashv;
    HASH_VALUE((const void *)addr, sizeof addr, hashv);
    *bucket = mt_uthash_bucket(tbl, hashv);
    return (item_t *)(void *)mt_uthash_find_in_bucket(*bucket, (const void *)addr);
}

static item_t *ref_find(const UT_hash_table *tbl, uintptr_t addr)
{
    unsigned hashv, bkt;
    item_t *out;
    HASH_VALUE((const void *)addr, sizeof addr, hashv);
    HASH_TO_BKT(hashv, tbl->num_buckets, bkt);
    HASH_FIND_IN_BKT(tbl, hh, tbl->buckets[bkt], (const void *)addr, sizeof addr, hashv, out);
    return out;
}

/* The two tables hold the same records in the same places: everything uthash keeps. */
static void expect_same(const UT_hash_table *f, const UT_hash_table *r, size_t step)
{
    cr_assert_eq(f->num_buckets, r->num_buckets, "step %zu: buckets", step);
    cr_assert_eq(f->log2_num_buckets, r->log2_num_buckets, "step %zu", step);
    cr_assert_eq(f->num_items, r->num_items, "step %zu: items", step);
    cr_assert_eq(f->ideal_chain_maxlen, r->ideal_chain_maxlen, "step %zu: ideal", step);
    cr_assert_eq(f->nonideal_items, r->nonideal_items, "step %zu: nonideal", step);
    cr_assert_eq(f->ineff_expands, r->ineff_expands, "step %zu: ineffective", step);
    cr_assert_eq(f->noexpand, r->noexpand, "step %zu: noexpand", step);
    cr_assert_eq(f->hho, r->hho);
    cr_assert_eq(f->signature, r->signature);
    size_t items = 0;
    for (unsigned k = 0; k < f->num_buckets; k++) {
        const UT_hash_bucket *fb = &f->buckets[k], *rb = &r->buckets[k];
        cr_assert_eq(fb->count, rb->count, "step %zu: bucket %u's count", step, k);
        cr_assert_eq(fb->expand_mult, rb->expand_mult, "step %zu: bucket %u", step, k);
        const UT_hash_handle *fh = fb->hh_head, *rh = rb->hh_head, *fprev = NULL;
        unsigned n = 0;
        for (; fh != NULL && rh != NULL; fprev = fh, fh = fh->hh_next, rh = rh->hh_next, n++) {
            cr_assert_eq(fh->key, rh->key, "step %zu: bucket %u, place %u", step, k, n);
            cr_assert_eq(fh->hashv, rh->hashv);
            cr_assert_eq(fh->hh_prev, fprev, "step %zu: bucket %u's back links", step, k);
            cr_assert_eq(fh->tbl, f);
            cr_assert(fh->prev == OWN_PREV && fh->next == OWN_NEXT, "step %zu: list links", step);
            cr_assert(rh->prev == OWN_PREV && rh->next == OWN_NEXT, "step %zu: list links", step);
        }
        cr_assert(fh == NULL && rh == NULL, "step %zu: bucket %u's chain length", step, k);
        cr_assert_eq(n, fb->count, "step %zu: bucket %u's count is its chain's", step, k);
        items += n;
    }
    cr_assert_eq(items, f->num_items, "step %zu: the items are those in the buckets", step);
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* The address patterns of a sequence: blocks anywhere (uthash doubles as it should), blocks
 * of one size at a stride (the paper's index fills one bucket in eight until the table
 * grows), and addresses whose hashes collide (the same address >> 4 below bit 32), which make
 * uthash's doublings ineffective until it stops (noexpand) and raise expand_mult. */
enum pattern { SCATTERED, STRIDED, COLLIDING };

static uintptr_t new_addr(enum pattern p, uint64_t *rng, size_t i)
{
    uintptr_t base = (uintptr_t)0x555555550000u;
    switch (p) {
    case SCATTERED: return base + ((rng_next(rng) & 0xfffffffffu) << 4) + 16;
    case STRIDED: return base + 128 * i;
    case COLLIDING: /* three in four at one of 8 hashes, each with its own high bits */
        if (rng_next(rng) % 4 != 0)
            return base + 16 * (rng_next(rng) % 8) + ((uintptr_t)(i + 1) << 36);
        return base + ((rng_next(rng) & 0xfffffffffu) << 4) + 16;
    }
    return 0;
}

/* What a sequence went through: the most buckets, whether uthash stopped doubling, the
 * largest expand_mult of a bucket, the most records a bucket on average (in thousandths). */
typedef struct seen {
    unsigned buckets, noexpand, expand_mult, max_load_milli;
} seen_t;

/* n operations: inserts while fewer than `peak` records are in, then a churn of deletes and
 * inserts, each step also looking up a record in and an address not in; compared in full
 * every `every` steps and at each doubling. */
static seen_t run(enum pattern p, uint64_t seed, size_t peak, size_t steps, size_t every)
{
    seen_t seen = {0, 0, 0, 0};
    item_t *fast = calloc(steps + 1, sizeof *fast), *ref = calloc(steps + 1, sizeof *ref);
    size_t *live = calloc(steps + 1, sizeof *live); /* indexes of the records in */
    cr_assert(fast != NULL && ref != NULL && live != NULL);
    UT_hash_table *tbl = fast_make_table(), *ref_tbl = ref_make_table(&ref[0]);
    expect_same(tbl, ref_tbl, 0);
    uint64_t rng = seed;
    size_t nlive = 0, made = 1; /* (ref[0] is the reference table's head, never added) */
    unsigned buckets = tbl->num_buckets;
    for (size_t step = 1; step <= steps; step++) {
        bool insert = nlive < peak ? rng_next(&rng) % 8 != 0 : rng_next(&rng) % 2 == 0;
        UT_hash_bucket *bucket;
        if (insert || nlive == 0) {
            uintptr_t addr;
            do /* one record per address, as in the tracker */
                addr = new_addr(p, &rng, made);
            while (ref_find(ref_tbl, addr) != NULL);
            fast[made].addr = ref[made].addr = addr;
            fast_insert(tbl, &fast[made]);
            ref_insert(ref_tbl, &ref[made]);
            live[nlive++] = made++;
        } else {
            size_t at = rng_next(&rng) % nlive, i = live[at];
            item_t *f = fast_find(tbl, fast[i].addr, &bucket);
            cr_assert_eq(f, &fast[i], "step %zu: the free's lookup finds its record", step);
            mt_uthash_unlink(tbl, bucket, &f->hh);
            ref_delete(ref_tbl, &ref[i]);
            live[at] = live[--nlive];
        }
        /* lookups: a record in, and an address that is not (a freed or a new one) */
        if (nlive > 0) {
            size_t i = live[rng_next(&rng) % nlive];
            cr_assert_eq(fast_find(tbl, fast[i].addr, &bucket), &fast[i], "step %zu", step);
            cr_assert_eq(ref_find(ref_tbl, fast[i].addr), &ref[i]);
        }
        uintptr_t other = new_addr(p, &rng, made + 1);
        item_t *f = fast_find(tbl, other, &bucket), *r = ref_find(ref_tbl, other);
        cr_assert_eq(f == NULL, r == NULL, "step %zu: a lookup of %#lx", step,
                     (unsigned long)other);
        cr_assert(f == NULL || f->addr == r->addr);
        if (step % every == 0 || tbl->num_buckets != buckets) {
            expect_same(tbl, ref_tbl, step);
            for (unsigned k = 0; k < tbl->num_buckets; k++)
                if (tbl->buckets[k].expand_mult > seen.expand_mult)
                    seen.expand_mult = tbl->buckets[k].expand_mult;
        }
        buckets = tbl->num_buckets;
        unsigned load_milli = (unsigned)(1000u * (uint64_t)tbl->num_items / tbl->num_buckets);
        if (load_milli > seen.max_load_milli)
            seen.max_load_milli = load_milli;
    }
    expect_same(tbl, ref_tbl, steps);
    cr_assert_eq(tbl->num_items, nlive);
    seen.buckets = tbl->num_buckets;
    seen.noexpand = tbl->noexpand;
    uthash_free(tbl->buckets, 0);
    uthash_free(tbl, 0);
    item_t *ref_head = &ref[0];
    HASH_CLEAR(hh, ref_head);
    free(fast);
    free(ref);
    free(live);
    return seen;
}

/* Each sequence must reach what it is there for: doublings past the paper's 1024 buckets
 * that keep working for scattered and strided blocks, and never more than MT_TABLE_MAX_LOAD
 * records a bucket (uthash alone lets a table fill to about two); for colliding hashes,
 * uthash's ineffective doublings, a bucket's expand_mult raised, and at last noexpand. */
Test(table_fast, same_table_as_uthash_for_scattered_blocks, .timeout = 120)
{
    seen_t seen = run(SCATTERED, 1, 60000, 150000, 5000);
    cr_expect_geq(seen.buckets, 8 * MT_TABLE_PAPER_BUCKETS, "buckets: %u", seen.buckets);
    cr_expect_eq(seen.noexpand, 0);
    cr_expect_leq(seen.max_load_milli, 1000u * MT_TABLE_MAX_LOAD, "load: %u", seen.max_load_milli);
}

Test(table_fast, same_table_as_uthash_for_blocks_at_a_stride, .timeout = 120)
{
    seen_t seen = run(STRIDED, 2, 60000, 150000, 5000);
    cr_expect_geq(seen.buckets, 8 * MT_TABLE_PAPER_BUCKETS, "buckets: %u", seen.buckets);
    cr_expect_eq(seen.noexpand, 0);
    cr_expect_leq(seen.max_load_milli, 1000u * MT_TABLE_MAX_LOAD, "load: %u", seen.max_load_milli);
}

Test(table_fast, same_table_as_uthash_where_hashes_collide, .timeout = 120)
{
    seen_t seen = run(COLLIDING, 3, 2000, 8000, 250);
    cr_expect_eq(seen.noexpand, 1, "uthash stopped doubling");
    cr_expect_gt(seen.buckets, MT_TABLE_PAPER_BUCKETS, "after doubling at first");
    cr_expect_gt(seen.expand_mult, 0, "a bucket's expand_mult raised");
}

/* HASH_TO_BKT, as redefined for uthash's own macros, and the bucket the inline steps take
 * from the count's log2 are one index; at up to 1024 buckets it is the paper's. */
Test(table_fast, one_bucket_index_for_uthash_and_the_inline_steps)
{
    static UT_hash_bucket buckets[1u << 16];
    uint64_t rng = 4;
    for (unsigned log2 = 5; log2 <= 16; log2++) {
        UT_hash_table tbl = {
            .buckets = buckets, .num_buckets = 1u << log2, .log2_num_buckets = log2};
        for (int i = 0; i < 2000; i++) {
            unsigned hashv = (unsigned)rng_next(&rng), bkt;
            HASH_TO_BKT(hashv, tbl.num_buckets, bkt);
            cr_assert_eq(mt_uthash_bucket(&tbl, hashv), &buckets[bkt], "log2 %u", log2);
            cr_assert_lt(bkt, tbl.num_buckets);
            if (log2 <= 10)
                cr_assert_eq(bkt, hashv & (tbl.num_buckets - 1), "the paper's index");
        }
    }
}
