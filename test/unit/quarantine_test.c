/* quarantine_test.c - freed blocks wait in their shard's quarantine, oldest out first,
 * exactly as long as the budget says; pending blocks are never evicted; freed memory is
 * filled and checked; double frees and reallocs of freed blocks are recognised. */
#include <malloc.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/guard.h"
#include "checks/quarantine.h"
#include "checks/unwritten.h"
#include "records/site.h"

#define AT __FILE__, __LINE__, __func__

static size_t errors_seen;
static mt_error_t last_error;

static void observe(const mt_error_t *e)
{
    errors_seen++;
    last_error = *e;
}

static void setup(void)
{
    memtrack_set_option("quiet", "1");
    /* A block the page guards sample is held by its pages, not by the quarantine: these
     * tests count on every block being held, whatever the sampling's random gaps give. */
    cr_assert_eq(memtrack_set_options("page_guard_rate=0"), 0);
    mt_error_observer = observe;
}

TestSuite(quarantine, .init = setup);

static bool held(void *p)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)p);
    mt_lock(&s->lock);
    bool in = mt_quarantine_find_locked(s, (uintptr_t)p) != NULL;
    mt_unlock(&s->lock);
    return in;
}

/* Blocks in the same shard as `first`, so their frees push it out. */
static void *same_shard(void *first, size_t size)
{
    for (;;) {
        void *p = memtrack_malloc_at(size, AT);
        if (mt_shard_of((uintptr_t)p) == mt_shard_of((uintptr_t)first))
            return p;
    }
}

Test(quarantine, holds_a_block_until_the_shard_frees_past_the_budget)
{
    memtrack_set_option("quarantine", "1000");
    char *a = memtrack_malloc_at(100, AT);
    size_t cost_a = mt_quarantine_cost(100, 4), cost_b = mt_quarantine_cost(200, 4);
    cr_assert_eq(cost_a, 16 + 100 + 16);
    memtrack_free_at(a, AT);
    cr_assert(held(a));
    /* Free 200-byte blocks: a stays while a and the blocks after it fit in 1000 bytes. */
    size_t total = cost_a;
    while (total + cost_b <= 1000) {
        memtrack_free_at(same_shard(a, 200), AT);
        total += cost_b;
        cr_assert(held(a), "evicted with %zu of 1000 bytes held", total);
    }
    memtrack_free_at(same_shard(a, 200), AT);
    cr_expect_not(held(a), "the free that passed the budget pushed out the oldest");
}

Test(quarantine, a_block_bigger_than_the_budget_is_not_held)
{
    memtrack_set_option("quarantine", "100");
    void *small = memtrack_malloc_at(10, AT), *big = memtrack_malloc_at(100, AT);
    memtrack_free_at(small, AT);
    memtrack_free_at(big, AT);
    cr_expect(held(small));
    cr_expect_not(held(big));
    memtrack_set_option("quarantine", "0");
    void *c = memtrack_malloc_at(1, AT);
    memtrack_free_at(c, AT);
    cr_expect_not(held(c));
}

Test(quarantine, a_pending_block_is_never_evicted)
{
    memtrack_set_option("quarantine", "300");
    char *a = memtrack_malloc_at(100, AT);
    memtrack_free_at(a, AT);
    mt_shard_t *s = mt_shard_of((uintptr_t)a);
    mt_lock(&s->lock); /* as if its thread were still filling it */
    mt_block_t *b = mt_quarantine_find_locked(s, (uintptr_t)a);
    __atomic_fetch_or(&b->meta, MT_META_FLAG_PENDING, __ATOMIC_RELAXED);
    mt_unlock(&s->lock);
    for (int i = 0; i < 5; i++)
        memtrack_free_at(same_shard(a, 100), AT);
    cr_expect(held(a), "a pending block stays, over budget or not");
    __atomic_fetch_and(&b->meta, ~MT_META_FLAG_PENDING, __ATOMIC_RELEASE);
    memtrack_free_at(same_shard(a, 100), AT);
    cr_expect_not(held(a), "once published, the next free evicts it");
}

Test(quarantine, freed_memory_is_filled_and_checked)
{
    unsigned char *a = memtrack_malloc_at(40, AT);
    memset(a, 1, 40);
    memtrack_free_at(a, AT);
    for (int i = 0; i < 40; i++)
        cr_assert_eq(a[i], MT_FREE_FILL_BYTE);
    cr_expect_eq(memtrack_check(), 0);
    a[7] = 0;
    a[30] = 0;
    cr_expect_eq(memtrack_check(), 1);
    cr_expect_eq(errors_seen, 1);
    cr_expect_eq(last_error.kind, MT_ERROR_WRITE_AFTER_FREE);
    cr_expect_eq(last_error.changed, 2);
    cr_expect_eq(last_error.offset, 7);
    cr_expect_eq(last_error.extent, 31);
    cr_expect_eq(memtrack_check(), 1, "still damaged");
    cr_expect_eq(errors_seen, 1, "reported once");
}

Test(quarantine, damage_reported_while_live_does_not_hide_a_write_after_free)
{
    unsigned char *a = memtrack_malloc_at(8, AT);
    unsigned char *volatile past = a; /* (a pointer of unknown size: UBSan lets the overrun be) */
    past[8] = 0;
    cr_expect_eq(memtrack_check(), 1); /* the overrun, reported */
    memtrack_free_at(a, AT);
    a[0] = 0;
    cr_expect_eq(memtrack_check(), 1);
    cr_expect_eq(last_error.kind, MT_ERROR_WRITE_AFTER_FREE);
    cr_expect_eq(errors_seen, 2);
}

Test(quarantine, double_free_and_realloc_of_a_freed_block)
{
    char *a = memtrack_malloc_at(10, "alloc.c", 1, "f");
    memtrack_free_at(a, "first.c", 2, "f");
    memtrack_free_at(a, "second.c", 3, "f");
    cr_assert_eq(errors_seen, 1);
    cr_expect_eq(last_error.kind, MT_ERROR_DOUBLE_FREE);
    cr_expect_str_eq(mt_site_get(last_error.alloc_site)->file, "alloc.c");
    cr_expect_str_eq(mt_site_get(last_error.free_site)->file, "first.c");
    cr_expect_str_eq(mt_site_get(last_error.found_site)->file, "second.c");
    errno = 0;
    cr_expect_null(memtrack_realloc_at(a, 20, AT));
    cr_expect_eq(errno, EINVAL);
    cr_expect_eq(errors_seen, 2);
#ifndef MT_SANITIZER_ALLOCATOR /* the process's free() is the sanitizer's there */
    cr_expect_eq(malloc_usable_size(a), 0, "a freed block has no usable size");
    free(a); /* through the process's free(), as a library would */
    cr_expect_eq(errors_seen, 3);
    cr_expect_eq(last_error.kind, MT_ERROR_DOUBLE_FREE);
#endif
}

Test(quarantine, unwritten_bytes_are_counted_per_site)
{
    memtrack_set_option("unwritten", "1");
    for (int i = 0; i < 3; i++) {
        char *p = memtrack_malloc_at(100, "names.c", 7, "f");
        memset(p, 'x', 10 + i);
        memtrack_free_at(p, AT);
    }
    memtrack_free_at(memtrack_calloc_at(1, 50, "zeros.c", 9, "f"), AT);
    mt_unwritten_site_t sites[8];
    size_t n = mt_unwritten_collect(sites, 8);
    cr_assert_eq(n, 1, "calloc blocks are not counted");
    cr_expect_str_eq(mt_site_get(sites[0].site)->file, "names.c");
    cr_expect_eq(sites[0].blocks, 3);
    cr_expect_eq(sites[0].bytes, 300);
    cr_expect_eq(sites[0].unwritten, 90 + 89 + 88);
}

/* A large block made while unwritten was off holds the new-block fill in its first
 * MT_FILL_NEW_MAX bytes only: counted once the option is on, only those are, or the bytes
 * beyond, never written but never filled, would count as written. */
Test(quarantine, a_large_block_made_before_unwritten_is_counted_where_it_was_filled)
{
    const size_t size = 3 * MT_FILL_NEW_MAX;
    char *p = memtrack_malloc_at(size, "large.c", 3, "f"); /* the layout frozen: unwritten 0 */
    cr_assert_not_null(p);
    memset(p, 'x', 10);
    memset(p + size - 5, 0, 5); /* (whatever lay there before, never 0xCD) */
    memtrack_set_option("unwritten", "1");
    memtrack_free_at(p, AT);
    mt_unwritten_site_t sites[8];
    cr_assert_eq(mt_unwritten_collect(sites, 8), 1);
    cr_expect_eq(sites[0].bytes, MT_FILL_NEW_MAX);
    cr_expect_eq(sites[0].unwritten, MT_FILL_NEW_MAX - 10);
}

Test(quarantine, out_of_memory_gives_the_quarantine_back)
{
    memtrack_set_option("quarantine", "1g");
    char *a = memtrack_malloc_at(1000, AT);
    memtrack_free_at(a, AT);
    cr_assert(held(a));
    cr_expect_eq(mt_quarantine_drain(MT_SITE_NONE), 1000);
    cr_expect_not(held(a));
}

/* The FIFO spans several of its segments (a few hundred entries each): every block is held,
 * found as freed by the one lookup, walked by the checks, and leaves oldest first. */
Test(quarantine, thousands_of_blocks_leave_in_the_order_they_were_freed)
{
    enum { N = 2000 };
    static char *p[N];
    memtrack_set_option("quarantine", "1g");
    p[0] = memtrack_malloc_at(24, AT);
    for (int i = 1; i < N; i++)
        p[i] = same_shard(p[0], 24);
    for (int i = 0; i < N; i++)
        memtrack_free_at(p[i], AT);
    for (int i = 0; i < N; i++)
        cr_assert(held(p[i]), "block %d", i);
    p[N / 2][3] = 0;
    cr_expect_eq(memtrack_check(), 1, "the walk reaches a block in a middle segment");
    cr_expect_eq(last_error.kind, MT_ERROR_WRITE_AFTER_FREE);
    cr_expect_eq(last_error.addr, (uintptr_t)p[N / 2]);
    size_t cost = mt_quarantine_cost(24, 4);
    /* A budget for the newest 500 and the free that passes it: the oldest go first. */
    char budget[32];
    snprintf(budget, sizeof budget, "%zu", 500 * cost);
    memtrack_set_option("quarantine", budget);
    memtrack_free_at(same_shard(p[0], 24), AT);
    cr_expect_not(held(p[0]));
    cr_expect_not(held(p[N - 500]), "500 newer blocks fill the budget");
    cr_expect(held(p[N - 499]));
    cr_expect(held(p[N - 1]));
    memtrack_free_at(p[N - 1], AT);
    cr_expect_eq(last_error.kind, MT_ERROR_DOUBLE_FREE, "still a double free, found by the lookup");
}
