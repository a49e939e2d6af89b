/* table_growth_test.c - the grown table spreads blocks of one size (src/records/table.c): the
 * paper's low-bit index fills one bucket in 8 for 80-byte blocks, the grown index all,
 * and uthash keeps expanding: lookups stay short. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "records/table.h"

#define AT __FILE__, __LINE__, __func__

Test(table_growth, same_size_blocks_keep_lookups_short, .timeout = 60)
{
#ifdef MT_SANITIZER_ALLOCATOR
    cr_skip_test("blocks are laid out by a sanitizer's allocator, not glibc's, here");
#endif
    enum { N = 200000 };
    void **blocks = malloc(N * sizeof *blocks);
    cr_assert_not_null(blocks);
    for (size_t i = 0; i < N; i++) {
        blocks[i] = memtrack_malloc_at(80, AT); /* 128-byte chunks with the guards */
        cr_assert_not_null(blocks[i]);
    }
    /* Most of them are 128 bytes apart: (address >> 4) in steps of 8. */
    size_t strided = 0;
    for (size_t i = 1; i < N; i++)
        strided += (uintptr_t)blocks[i] - (uintptr_t)blocks[i - 1] == 128;
    cr_expect_gt(strided, N / 2, "blocks 128 bytes apart: %zu", strided);
    mt_table_shape_t shape;
    mt_table_shape(&shape);
    cr_expect_geq(shape.items, N);
    /* (the table doubles past one record a bucket, or when a chain reaches ten) */
    cr_expect_lt(shape.mean_visits, 4.0, "mean visits: %f", shape.mean_visits);
    cr_expect_lt(shape.max_chain, 24, "longest chain: %zu", shape.max_chain);
    cr_expect_eq(shape.noexpand_shards, 0);
    /* Every block is still found: freeing them all empties the table. */
    for (size_t i = 0; i < N; i++)
        memtrack_free_at(blocks[i], AT);
    mt_table_shape(&shape);
    cr_expect_eq(shape.items, 0);
    free(blocks);
}

Test(table_growth, grown_index_mixes_strided_addresses)
{
    /* 64 addresses 128 bytes apart: the paper's index puts them in 64 of 1024 buckets,
     * 8 apart; the grown index (2048 buckets and up) must not keep that pattern. */
    uintptr_t base = 0x555555560000;
    unsigned used_mask_1024 = 0, multiples_of_8 = 0;
    for (unsigned i = 0; i < 64; i++) {
        used_mask_1024 |= mt_table_bucket_of(base + 128 * i, 1024) % 8;
        multiples_of_8 += mt_table_bucket_of(base + 128 * i, 4096) % 8 == 0;
    }
    cr_expect_eq(used_mask_1024, 0, "the paper's index: every eighth bucket");
    cr_expect_lt(multiples_of_8, 32, "grown index: %u of 64 on multiples of 8", multiples_of_8);
}
