/* tracker_test.c - the entry points behave like the C library's and count what they do. */
#include <criterion/criterion.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>

#include "checks/guard.h"
#include "records/site.h"
#include "records/table.h"

#define AT __FILE__, __LINE__, __func__

static void quiet(void)
{
    memtrack_set_option("quiet", "1");
}

TestSuite(tracker, .init = quiet);

Test(tracker, blocks_keep_malloc_alignment)
{
    for (size_t n = 1; n < 300; n += 7) {
        void *p = memtrack_malloc_at(n, AT);
        cr_assert_eq((uintptr_t)p % 16, 0, "size %zu", n);
        memtrack_free_at(p, AT);
    }
}

Test(tracker, aligned_allocations_keep_their_alignment)
{
    void *p = NULL;
    for (size_t a = 16; a <= 8192; a *= 2) {
        void *q = memtrack_aligned_alloc_at(a, 100, AT);
        cr_assert_eq((uintptr_t)q % a, 0, "alignment %zu", a);
        memtrack_free_at(q, AT);
        cr_assert_eq(memtrack_posix_memalign_at(&p, a, 10, AT), 0);
        cr_assert_eq((uintptr_t)p % a, 0);
        memtrack_free_at(p, AT);
    }
    cr_expect_eq(memtrack_posix_memalign_at(&p, 24, 10, AT), EINVAL);
    errno = 0;
    cr_expect_null(memtrack_aligned_alloc_at(48, 10, AT));
    cr_expect_eq(errno, EINVAL);
}

Test(tracker, calloc_zeroes_and_malloc_fills)
{
    unsigned char *z = memtrack_calloc_at(10, 10, AT);
    unsigned char *m = memtrack_malloc_at(100, AT);
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(z[i], 0);
        cr_assert_eq(m[i], MT_ALLOC_FILL_BYTE);
    }
    memtrack_free_at(z, AT);
    memtrack_free_at(m, AT);
}

Test(tracker, overflowing_sizes_fail_with_enomem)
{
    memtrack_stats_t before, after;
    memtrack_stats(&before);
    errno = 0;
    cr_expect_null(memtrack_calloc_at(SIZE_MAX / 2, 3, AT));
    cr_expect_eq(errno, ENOMEM);
    errno = 0;
    cr_expect_null(memtrack_malloc_at(SIZE_MAX - 8, AT));
    cr_expect_eq(errno, ENOMEM);
    errno = 0;
    cr_expect_null(memtrack_reallocarray_at(NULL, SIZE_MAX / 4, 8, AT));
    cr_expect_eq(errno, ENOMEM);
    memtrack_stats(&after);
    cr_expect_eq(after.failed - before.failed, 3);
}

Test(tracker, failed_realloc_keeps_the_old_block)
{
    char *p = memtrack_strdup_at("still here", AT);
    errno = 0;
    cr_expect_null(memtrack_realloc_at(p, SIZE_MAX - 100, AT));
    cr_expect_eq(errno, ENOMEM);
    cr_expect_str_eq(p, "still here");
    memtrack_stats_t st;
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 1);
    memtrack_free_at(p, AT);
}

Test(tracker, realloc_moves_and_copies)
{
    char *p = memtrack_malloc_at(8, AT);
    memcpy(p, "abcdefgh", 8);
    char *q = memtrack_realloc_at(p, 100, AT);
    cr_assert_not_null(q);
    cr_expect_neq(p, q);
    cr_expect(memcmp(q, "abcdefgh", 8) == 0);
    char *r = memtrack_realloc_at(q, 4, AT);
    cr_expect(memcmp(r, "abcd", 4) == 0);
    cr_expect_null(memtrack_realloc_at(r, 0, AT)); /* glibc: frees, returns NULL */
    memtrack_stats_t st;
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 0);
}

Test(tracker, realloc_moves_the_block_to_the_realloc_site)
{
    void *p = memtrack_malloc_at(8, "first.c", 1, "f");
    p = memtrack_realloc_at(p, 16, "second.c", 2, "g");
    mt_shard_t *s = mt_shard_of((uintptr_t)p);
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_locked(s, (uintptr_t)p);
    cr_assert_not_null(b);
    const mt_site_t *site = mt_site_get(b->site);
    mt_unlock(&s->lock);
    cr_expect_str_eq(site->file, "second.c");
    cr_expect_eq(site->line, 2);
    cr_expect_eq(site->kind, MT_KIND_REALLOC);
    memtrack_free_at(p, AT);
}

Test(tracker, strndup_stops_at_n)
{
    char *s = memtrack_strndup_at("abcdef", 3, AT);
    cr_expect_str_eq(s, "abc");
    memtrack_free_at(s, AT);
}

Test(tracker, malloc_zero_gives_a_unique_pointer)
{
    void *a = memtrack_malloc_at(0, AT), *b = memtrack_malloc_at(0, AT);
    cr_expect_not_null(a);
    cr_expect_neq(a, b);
    memtrack_free_at(a, AT);
    memtrack_free_at(b, AT);
}

Test(tracker, stats_follow_blocks)
{
    memtrack_stats_t st;
    void *a = memtrack_malloc_at(100, AT), *b = memtrack_malloc_at(50, AT);
    memtrack_stats(&st);
    cr_expect_eq(st.current_bytes, 150);
    cr_expect_eq(st.current_blocks, 2);
    cr_expect_geq(st.peak_bytes, 150);
    memtrack_free_at(a, AT);
    memtrack_stats(&st);
    cr_expect_eq(st.current_bytes, 50);
    cr_expect_eq(st.current_blocks, 1);
    cr_expect_eq(st.peak_bytes, 150);
    cr_expect_eq(st.frees, 1);
    memtrack_free_at(b, AT);
}

Test(tracker, untracked_entry_points_route_by_lookup)
{
#ifdef MT_SANITIZER_ALLOCATOR
    cr_skip_test("a sanitizer build leaves free() and realloc() to the sanitizer");
#endif
    /* free() and realloc() (what untracked code calls) handle tracked blocks. */
    char *t = memtrack_malloc_at(10, AT);
    t = realloc(t, 20);
    memtrack_stats_t st;
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 1);
    cr_expect_eq(malloc_usable_size(t), 20);
    free(t);
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 0);
    /* and the C library's blocks pass through untouched */
    void *u = malloc(10);
    cr_expect_geq(malloc_usable_size(u), 10);
    memtrack_stats(&st);
    size_t frees = st.frees;
    memtrack_free_at(u, AT);
    memtrack_stats(&st);
    cr_expect_eq(st.frees, frees);
    cr_expect_eq(st.errors, 0);
}

Test(tracker, free_null_is_silent_and_counts_nothing)
{
    memtrack_stats_t before, after;
    memtrack_stats(&before);
    memtrack_free_at(NULL, AT);
    free(NULL);
    memtrack_stats(&after);
    cr_expect_eq(before.frees, after.frees);
    cr_expect_eq(after.errors, 0);
}

Test(tracker, check_counts_damaged_blocks)
{
    char *a = memtrack_malloc_at(5, AT);
    char *b = memtrack_malloc_at(5, AT);
    cr_expect_eq(memtrack_check(), 0);
    char *volatile past_a = a, *volatile before_b = b; /* (sizes unknown: UBSan lets them be) */
    past_a[5] = 0;
    before_b[-2] = 0;
    cr_expect_eq(memtrack_check(), 2);
    cr_expect_eq(memtrack_check(), 2); /* still damaged, reported once */
    memtrack_stats_t st;
    memtrack_stats(&st);
    cr_expect_eq(st.errors, 2);
    memtrack_free_at(a, AT);
    memtrack_free_at(b, AT);
}

static unsigned hook_calls;
static void count_hook(void *ctx)
{
    (void)ctx;
    hook_calls++;
}

/* The lock hooks are bare metal's (tools/doc/platforms.md): on a hosted platform the tracker's
 * own locks serve, so setting them is refused and they are never called. */
Test(tracker, lock_hooks_are_not_used_on_hosted_platforms)
{
    cr_expect_eq(memtrack_set_lock_hooks(count_hook, count_hook, NULL), 0);
    void *p = memtrack_malloc_at(10, AT);
    memtrack_free_at(p, AT);
    cr_expect_eq(memtrack_check(), 0);
    cr_expect_eq(hook_calls, 0u);
}

/* A signal handler that allocates while its thread is inside the tracker (holding a shard's
 * lock, as a handler that interrupts a malloc finds it) must not wait for that lock, which
 * would be forever: the nested call gets an untracked block from the C library at once, and
 * the block is released later as any of the C library's, quietly. (Holding every shard's
 * lock: wherever the nested block lands. The timeout turns a deadlock into a failure.) */
Test(tracker, nested_call_under_a_shard_lock_goes_untracked, .timeout = 30)
{
    memtrack_stats_t before, during, after;
    memtrack_stats(&before);
    mt_table_lock_all();
    void *nested = memtrack_malloc_at(48, AT);
    void *zeroed = memtrack_calloc_at(4, 8, AT);
    mt_table_unlock_all();
    memtrack_stats(&during);
    cr_assert_not_null(nested);
    cr_assert_not_null(zeroed);
    cr_expect_eq(during.total_blocks, before.total_blocks, "the nested blocks are untracked");
    memtrack_free_at(nested, AT);
    memtrack_free_at(zeroed, AT);
    memtrack_stats(&after);
    cr_expect_eq(after.errors, before.errors, "freeing them is no error");
    cr_expect_eq(after.frees, before.frees);
}
