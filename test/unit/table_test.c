/* table_test.c - the address-keyed hash: the paper's index at 1024 buckets, growth that
 * keeps lookups O(1), and records that stay outside the user's memory. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "records/table.h"

Test(table, paper_index_while_1024_buckets)
{
    uintptr_t addrs[] = {0x10, 0x4000, 0x555555559ab0, 0x7f12345678f0, 0xfffffffff0};
    for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++)
        cr_expect_eq(mt_table_bucket_of(addrs[i], 1024), (unsigned)((addrs[i] >> 4) & 1023),
                     "address %#lx", (unsigned long)addrs[i]);
}

Test(table, hash_keeps_bits_above_the_first_ten)
{
    /* Two addresses 16 KiB apart share the 1024-bucket index, but not the 2048 one:
     * the hash value carries more than 10 bits, so doubling the buckets splits them. */
    uintptr_t a = 0x555555559ab0, b = a + (1024u << 4);
    cr_expect_eq(mt_table_bucket_of(a, 1024), mt_table_bucket_of(b, 1024));
    cr_expect_neq(mt_table_bucket_of(a, 2048), mt_table_bucket_of(b, 2048));
}

Test(table, starts_with_1024_buckets_per_shard)
{
    void *p = memtrack_malloc_at(10, __FILE__, __LINE__, __func__);
    mt_table_shape_t shape;
    mt_table_shape(&shape);
    cr_assert_eq(shape.items, 1);
    cr_expect_eq(shape.buckets, MT_TABLE_INITIAL_BUCKETS);
    memtrack_free_at(p, __FILE__, __LINE__, __func__);
}

/* A million live blocks: the table must have grown (more buckets than at start, none of
 * the shards failed to grow), to at most MT_TABLE_MAX_LOAD records a bucket, and a lookup
 * visits about one record (uthash's own rule alone left two a bucket here, 2.03 visits). */
Test(table, stays_constant_time_at_a_million_blocks, .timeout = 120)
{
#ifdef MT_SANITIZER_ALLOCATOR
    cr_skip_test("the table is shaped for glibc's addresses, not a sanitizer allocator's");
#endif
    enum { N = 1000000 };
    void **blocks = malloc(N * sizeof *blocks);
    cr_assert_not_null(blocks);
    for (size_t i = 0; i < N; i++) {
        blocks[i] = memtrack_malloc_at(16 + i % 240, __FILE__, __LINE__, __func__);
        cr_assert_not_null(blocks[i]);
    }
    mt_table_shape_t shape;
    mt_table_shape(&shape);
    cr_expect_eq(shape.items, N);
    cr_expect_gt(shape.buckets, 64u * MT_TABLE_INITIAL_BUCKETS, "buckets: %zu", shape.buckets);
    cr_expect_eq(shape.noexpand_shards, 0);
    cr_expect_leq(shape.items, shape.buckets * MT_TABLE_MAX_LOAD, "buckets: %zu", shape.buckets);
    cr_expect_lt(shape.mean_visits, 1.6, "mean visits per lookup: %f", shape.mean_visits);
    for (size_t i = 0; i < N; i++)
        memtrack_free_at(blocks[i], __FILE__, __LINE__, __func__);
    mt_table_shape(&shape);
    cr_expect_eq(shape.items, 0);
    free(blocks);
}

/* uthash frees a hash's table with its last record and makes it again on the next insert
 * (a 16 KiB memset): a shard's table is kept instead, so a thread that mallocs and frees
 * one block at a time does not pay that at every pair. */
Test(table, a_shard_keeps_its_table_when_its_last_block_goes)
{
    memtrack_set_option("quarantine", "0");
    void *p = memtrack_malloc_at(10, __FILE__, __LINE__, __func__);
    mt_shard_t *s = mt_shard_of((uintptr_t)p);
    const void *table, *buckets, *table2, *buckets2;
    mt_table_storage(s, &table, &buckets);
    memtrack_free_at(p, __FILE__, __LINE__, __func__);
    mt_table_shape_t shape;
    mt_table_shape(&shape);
    cr_expect_eq(shape.items, 0);
    mt_table_storage(s, &table2, &buckets2);
    cr_expect_not_null(table2);
    cr_expect_eq(table2, table, "the same table, kept");
    cr_expect_eq(buckets2, buckets);
    void *q = memtrack_malloc_at(10, __FILE__, __LINE__, __func__);
    if (mt_shard_of((uintptr_t)q) == s) {
        mt_table_storage(s, &table2, &buckets2);
        cr_expect_eq(table2, table, "and used again");
    }
    memtrack_free_at(q, __FILE__, __LINE__, __func__);
}

Test(table, records_live_outside_user_memory)
{
    /* Overwrite far past a block's guards: its record must still be found and the
     * block freed normally (the damage is reported, not fatal). */
    memtrack_set_option("quiet", "1");
    unsigned char *a = memtrack_malloc_at(64, __FILE__, __LINE__, __func__);
    unsigned char *b = memtrack_malloc_at(64, __FILE__, __LINE__, __func__);
    memset(a + 64, 0x00, 16); /* the whole back guard */
    memtrack_stats_t st;
    memtrack_free_at(a, __FILE__, __LINE__, __func__);
    memtrack_free_at(b, __FILE__, __LINE__, __func__);
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 0);
    cr_expect_eq(st.errors, 1);
}

/* A shard whose table cannot be made fails the allocation and gives its record back to the
 * slab: a recycled record is only ever one of a shard whose table is made, which the inline
 * track (mt_table_track_inline) takes as there, testing for a recycled record alone. */
Test(table, a_shard_without_its_table_recycles_no_record)
{
    static mt_shard_t s = {.lock = MT_LOCK_INIT};
    static mt_block_t slab[4];
    s.slab_next = slab; /* records without storage; the table's making fails */
    s.slab_left = s.records_made = 4;
    cr_assert_eq(memtrack_set_option("test_fail_storage", "1"), 0);
    cr_expect_not(mt_table_track_slow(&s, false, 0x1000, 8, 0, MT_SITE_NONE));
    cr_expect_null(s.table);
    cr_expect_null(s.free_records, "no record recycled into a shard without its table");
    cr_expect_eq(s.slab_next, slab);
    cr_expect_eq(s.slab_left, 4);
    cr_expect_not(mt_lock_held(&s.lock));
    cr_expect_not(mt_table_track_slow(&s, false, 0x2000, 8, 0, MT_SITE_NONE), "and again");
    cr_expect_null(s.free_records);
}

/* The tracker's own doubling (past MT_TABLE_MAX_LOAD records a bucket) is an optimisation:
 * when its bigger buckets cannot be allocated, the table as it is still holds the new
 * record, and the allocation must not fail for it (hosted, a failed track fails the
 * program's malloc with ENOMEM). Only uthash's own rule, a chain at its threshold, fails
 * an add whose doubling cannot be made (as uthash's HASH_ADD_TO_BKT does). Both ways in: the
 * slow track (insert_locked) and the inline track's doubling (mt_table_track_expand). */
#define LOAD_FULL (MT_TABLE_INITIAL_BUCKETS * MT_TABLE_MAX_LOAD)
static mt_shard_t loaded = {.lock = MT_LOCK_INIT};
static mt_block_t loaded_slab[LOAD_FULL + 4];

/* A shard whose table holds MT_TABLE_MAX_LOAD records in each of its buckets (addresses 16
 * apart: the paper's index puts them one a bucket in turn), none more; storage failing
 * from then on. */
static void fill_to_the_load(void)
{
    loaded.slab_next = loaded_slab;
    loaded.slab_left = loaded.records_made = LOAD_FULL + 4;
    for (uintptr_t i = 0; i < LOAD_FULL; i++)
        cr_assert(mt_table_track_slow(&loaded, false, 0x100000 + 16 * i, 8, 0, MT_SITE_NONE));
    cr_assert_eq(loaded.table->num_buckets, MT_TABLE_INITIAL_BUCKETS);
    cr_assert_eq(memtrack_set_option("test_fail_storage", "1"), 0);
}

static void expect_kept(uintptr_t addr)
{
    mt_lock(&loaded.lock);
    cr_expect_not_null(mt_table_find_locked(&loaded, addr), "the record is in its bucket");
    cr_expect_eq(loaded.table->num_items, LOAD_FULL + 1);
    cr_expect_eq(loaded.table->num_buckets, MT_TABLE_INITIAL_BUCKETS, "no doubling made");
    mt_unlock(&loaded.lock);
}

Test(table, an_add_past_the_load_stays_when_its_doubling_cannot_be_made_slow)
{
    fill_to_the_load();
    uintptr_t addr = 0x100000 + 16 * LOAD_FULL;
    cr_expect(mt_table_track_slow(&loaded, false, addr, 8, 0, MT_SITE_NONE));
    cr_expect_not(mt_lock_held(&loaded.lock));
    expect_kept(addr);
}

Test(table, an_add_past_the_load_stays_when_its_doubling_cannot_be_made_inline)
{
    fill_to_the_load();
    uintptr_t addr = 0x100000 + 16 * LOAD_FULL;
    /* mt_table_track_inline's steps, on this shard */
    mt_lock(&loaded.lock);
    mt_block_t *b = mt_record_new_locked(&loaded);
    cr_assert_not_null(b);
    mt_block_start(b, addr, 8, 0, MT_SITE_NONE);
    HASH_VALUE(b->hh.key, sizeof addr, b->hh.hashv);
    cr_assert(mt_uthash_add(loaded.table, &b->hh), "a doubling due");
    cr_expect(mt_table_track_expand(&loaded, b));
    cr_expect_not(mt_lock_held(&loaded.lock));
    expect_kept(addr);
}
