/* page_guard_test.c - page-guarded blocks: where they sit against their page, the check
 * of the bytes on their other side, and their release. Each test runs in its own process
 * (Criterion's default), so each sets the options before the first block. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "checks/page_guard.h"
#include "memtrack.h"

#define PAGE ((uintptr_t)sysconf(_SC_PAGESIZE))

static char *alloc(size_t n, int line)
{
    return memtrack_malloc_at(n, "unit/page_guard.c", line, "alloc");
}

static void quiet(void)
{
    cr_assert_eq(memtrack_set_options("quiet=1"), 0);
}

TestSuite(page_guard, .init = quiet);

Test(page_guard, a_chosen_block_ends_at_its_page_to_the_byte)
{
    cr_assert_eq(memtrack_set_options("page_guard_site=page_guard.c:10"), 0);
    char *p = alloc(13, 10), *q = alloc(13, 11);
    cr_expect(mt_page_guarded((uintptr_t)p));
    cr_expect_eq(((uintptr_t)p + 13) % PAGE, 0, "13 bytes end at the page");
    cr_expect_not(mt_page_guarded((uintptr_t)q), "another line is not chosen");
    memset(p, 'x', 13);
    cr_expect_eq(memtrack_check(), 0);
    memtrack_free_at(p, __FILE__, __LINE__, __func__);
    memtrack_free_at(q, __FILE__, __LINE__, __func__);
}

Test(page_guard, a_sampled_block_keeps_malloc_alignment_and_its_pad_is_checked)
{
    cr_assert_eq(memtrack_set_options("page_guard_rate=1"), 0);
    char *p = alloc(13, 20);
    cr_assert(mt_page_guarded((uintptr_t)p));
    cr_expect_eq((uintptr_t)p % 16, 0);
    cr_expect_eq(((uintptr_t)p + 16) % PAGE, 0, "the pad fills the last 16 bytes");
    cr_expect_eq(memtrack_check(), 0);
    p[13] = 'x'; /* in the pad: no fault, found by the check */
    cr_expect_eq(memtrack_check(), 1);
    memtrack_free_at(p, __FILE__, __LINE__, __func__);
}

Test(page_guard, the_start_side_puts_the_block_after_its_page)
{
    cr_assert_eq(memtrack_set_options("page_guard=all:page_guard_side=start"), 0);
    char *p = alloc(100, 30);
    cr_expect(mt_page_guarded((uintptr_t)p));
    cr_expect_eq((uintptr_t)p % PAGE, 0);
    p[100] = 'x'; /* the pad after it is checked */
    cr_expect_eq(memtrack_check(), 1);
    memtrack_free_at(p, __FILE__, __LINE__, __func__);
}

Test(page_guard, the_pool_of_sampled_slots_is_bounded)
{
    cr_assert_eq(memtrack_set_options("page_guard_rate=1:page_guard_slots=3"), 0);
    char *p[5];
    size_t guarded = 0;
    for (int i = 0; i < 5; i++)
        guarded += mt_page_guarded((uintptr_t)(p[i] = alloc(8, 40)));
    cr_expect_eq(guarded, 3);
    for (int i = 0; i < 5; i++)
        memtrack_free_at(p[i], __FILE__, __LINE__, __func__);
    char *again = alloc(8, 41);
    cr_expect(mt_page_guarded((uintptr_t)again), "a freed slot is used again");
    memtrack_free_at(again, __FILE__, __LINE__, __func__);
}

Test(page_guard, no_sampling_before_allocation_rate_plus_one)
{
    cr_assert_eq(memtrack_set_options("page_guard_rate=50"), 0);
    for (int i = 0; i < 50; i++) {
        char *p = alloc(8, 50);
        cr_expect_not(mt_page_guarded((uintptr_t)p));
        memtrack_free_at(p, __FILE__, __LINE__, __func__);
    }
}

Test(page_guard, guard_0_checks_no_bytes_but_the_page_still_guards)
{
    cr_assert_eq(memtrack_set_options("page_guard_rate=1:guard=0"), 0);
    char *p = alloc(13, 60);
    cr_assert(mt_page_guarded((uintptr_t)p));
    p[13] = 'x'; /* the pad: not checked with guards off */
    cr_expect_eq(memtrack_check(), 0);
    memtrack_free_at(p, __FILE__, __LINE__, __func__);
}

/* ---- pool objects and arena allocations (api/owned_paged.c) ---------------------------- */

#define AT "unit/page_guard.c", __LINE__, "owned"

static void count_and_check(void *object, void *ctx)
{
    void **seen = ctx;
    for (int i = 0; i < 8; i++)
        if (seen[i] == object) {
            seen[i] = NULL; /* visited once, at the address the program got */
            return;
        }
    cr_expect_fail("foreach visited %p, which the pool never handed out", object);
}

Test(page_guard, sampled_pool_objects_keep_their_slots_reserved)
{
    cr_assert_eq(memtrack_set_options("page_guard_rate=1:page_guard_slots=3"), 0);
    memtrack_pool_t *p = memtrack_pool_create_at("bullets", 24, 5, AT);
    memtrack_pool_set_growth(p, 0, 0);
    void *o[8] = {0}, *seen[8];
    size_t guarded = 0;
    for (int i = 0; i < 5; i++) {
        o[i] = memtrack_pool_alloc_at(p, AT);
        cr_assert_not_null(o[i]);
        guarded += mt_page_guarded((uintptr_t)o[i]);
        cr_expect(memtrack_pool_owns(p, o[i]));
        memset(o[i], 'x', 24);
    }
    cr_expect_eq(guarded, 3, "sampled while the sampled slots last");
    cr_expect_null(memtrack_pool_alloc_at(p, AT), "full: the guarded ones kept their slots");
    memcpy(seen, o, sizeof seen);
    memtrack_pool_foreach(p, count_and_check, seen);
    for (int i = 0; i < 5; i++)
        cr_expect_null(seen[i], "object %d visited", i);
    cr_expect_eq(memtrack_check(), 0);
    cr_expect_eq(memtrack_pool_check(p), 0);
    memtrack_pool_free_at(p, o[0], AT);
    memtrack_pool_free_at(p, o[3], AT);
    cr_expect_not(memtrack_pool_owns(p, o[0]));
    void *again = memtrack_pool_alloc_at(p, AT);
    cr_expect(mt_page_guarded((uintptr_t)again), "a sampled slot was given back");
    memtrack_stats_t st;
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 4);
    cr_expect_eq(st.errors, 0);
    memtrack_pool_clear_at(p, AT); /* releases the guarded ones too */
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 0);
    cr_expect_eq(st.errors, 0);
    memtrack_pool_destroy_at(p, AT);
}

Test(page_guard, sampled_arena_allocations_count_as_the_arena_counts)
{
    cr_assert_eq(memtrack_set_options("page_guard_rate=1:page_guard_slots=2"), 0);
    memtrack_arena_t *a = memtrack_arena_create_at("level", 4096, AT);
    char *x = memtrack_arena_alloc_at(a, 100, AT), *y = memtrack_arena_alloc_at(a, 100, AT);
    char *z = memtrack_arena_alloc_at(a, 100, AT);
    cr_expect(mt_page_guarded((uintptr_t)x) && mt_page_guarded((uintptr_t)y));
    cr_expect_not(mt_page_guarded((uintptr_t)z));
    cr_expect_eq(memtrack_arena_used(a), 2 * 112 + 100, "offsets as untracked");
    size_t mark = memtrack_arena_mark(a);
    memset(x, 'x', 100);
    memset(z, 'z', 100);
    cr_expect_eq(memtrack_check(), 0);
    memtrack_arena_rewind_at(a, mark, AT);
    memtrack_arena_reset_at(a, AT);
    memtrack_stats_t st;
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 0);
    char *again = memtrack_arena_alloc_at(a, 100, AT);
    cr_expect(mt_page_guarded((uintptr_t)again), "the reset gave the sampled slots back");
    memtrack_arena_destroy_at(a, AT);
    memtrack_stats(&st);
    cr_expect_eq(st.current_blocks, 0);
    cr_expect_eq(st.errors, 0);
}
