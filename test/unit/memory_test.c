/* memory_test.c - the tracker's own memory (src/base/memory.c) stays out of the C library's
 * heap, where the program's overruns and stray frees could reach it. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/memory.h"
#include "records/site.h"
#include "records/table.h"

#define AT __FILE__, __LINE__, __func__

/* True when p lies in the C library's main heap: between its first block and the break. */
static bool in_main_heap(const void *p, const void *heap_low)
{
    return (const char *)p >= (const char *)heap_low && (const char *)p < (char *)sbrk(0);
}

Test(memory, records_tables_and_sites_are_outside_the_heap)
{
#ifdef MT_SANITIZER_ALLOCATOR
    cr_skip_test("a sanitizer's allocator, not glibc's heap, hands out the blocks");
#endif
    void *first = mt_libc_malloc(16); /* a block of the main heap, near its start */
    void *blocks[3000];
    for (int i = 0; i < 3000; i++)
        blocks[i] = memtrack_malloc_at(40, "memory_test.c", i, "f");
    cr_assert(in_main_heap(blocks[0], first), "user blocks do come from the main heap");
    for (int i = 0; i < 3000; i++) {
        mt_shard_t *s = mt_shard_of((uintptr_t)blocks[i]);
        mt_lock(&s->lock);
        mt_block_t *b = mt_table_find_locked(s, (uintptr_t)blocks[i]);
        cr_assert_not_null(b);
        cr_assert_not(in_main_heap(b, first), "record %d in the heap", i);
        const void *table, *buckets;
        mt_table_storage(s, &table, &buckets);
        cr_assert_not_null(table);
        cr_assert_not(in_main_heap(buckets, first), "buckets in the heap");
        cr_assert_not(in_main_heap(table, first), "table in the heap");
        mt_unlock(&s->lock);
    }
    const mt_site_t *site = mt_site_get(mt_site_id("memory_test.c", 1, "f", MT_KIND_MALLOC, NULL));
    cr_expect_not(in_main_heap(site->file, first));
    for (int i = 0; i < 3000; i++)
        memtrack_free_at(blocks[i], AT);
    mt_libc_free(first);
}

Test(memory, classes_reuse_and_grow)
{
    char *a = mt_mem_alloc(100), *b = mt_mem_alloc(100);
    cr_assert(a && b && a != b);
    cr_expect_eq((uintptr_t)a % 16, 0);
    memset(a, 'a', 100);
    mt_mem_free(a);
    char *c = mt_mem_alloc(90); /* same class: the block just freed */
    cr_expect_eq(c, a);
    char *big = mt_mem_calloc(1, 1 << 20); /* a mapping of its own */
    cr_assert_not_null(big);
    cr_expect_eq(big[(1 << 20) - 1], 0);
    big[0] = 1;
    mt_mem_free(big);
    mt_mem_free(b);
    mt_mem_free(c);
    cr_expect_null(mt_mem_alloc(SIZE_MAX - 8));
    cr_expect_null(mt_mem_calloc(SIZE_MAX / 2, 4));
}
