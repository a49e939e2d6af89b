/* pool_tracked_test.c - pools, arenas and registered blocks built with MEMORY_CONTROL_ON:
 * every object is a record with its site and owner, guarded, in the statistics; every
 * misuse is one error with the right sites, and changes nothing. */
#define MEMORY_CONTROL_ON
/* A call and the __LINE__ that names it share a line here: the formatter leaves them be. */
/* clang-format off */
#include "memtrack.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/owned.h"

static void setup(void)
{
    memtrack_set_option("quiet", "1");
    /* An object the page guards sample lives in their region, not in its pool's slot:
     * these tests count slots and chains, whatever the sampling's random gaps give
     * (page_guard_test.c covers sampled pool objects). */
    cr_assert_eq(memtrack_set_options("page_guard_rate=0"), 0);
}

TestSuite(pool_tracked, .init = setup);

static size_t errors_of(mt_error_kind_t kind)
{
    return mt_error_count(kind);
}

/* The last error logged. */
static mt_error_t last_error(void)
{
    static mt_error_t log[MT_ERROR_LOG_MAX];
    size_t n = mt_error_log(log, MT_ERROR_LOG_MAX);
    cr_assert_gt(n, 0, "no error logged");
    return log[n - 1];
}

static const mt_site_t *site(uint32_t id)
{
    return mt_site_get(id);
}

static memtrack_stats_t stats(void)
{
    memtrack_stats_t st;
    memtrack_stats(&st);
    return st;
}

/* ---- records, guards, statistics -------------------------------------------------- */

Test(pool_tracked, each_object_is_a_record_with_its_site_and_owner)
{
    memtrack_stats_t before = stats();
    memtrack_pool_t *p = memtrack_pool_create("bullets", 20, 4);
    void *o = memtrack_pool_alloc(p); int line = __LINE__;
    mt_block_t b;
    cr_assert(mt_block_peek(o, &b));
    cr_expect_eq(b.size, 20);
    cr_expect(b.meta & MT_META_FLAG_OWNED);
    cr_expect_eq(site(b.site)->kind, MT_KIND_POOL);
    cr_expect_str_eq(site(b.site)->owner, "bullets");
    cr_expect_eq(site(b.site)->line, line);
    cr_expect_str_eq(site(b.site)->func, __func__);
    memtrack_stats_t mid = stats();
    cr_expect_eq(mid.current_blocks, before.current_blocks + 1);
    cr_expect_eq(mid.current_bytes, before.current_bytes + 20);
    cr_expect_eq(mid.total_blocks, before.total_blocks + 1);
    memtrack_pool_free(p, o);
    cr_expect_not(mt_block_peek(o, &b), "released: the record is gone");
    memtrack_stats_t after = stats();
    cr_expect_eq(after.current_blocks, before.current_blocks);
    cr_expect_eq(after.frees, before.frees + 1);
    memtrack_pool_destroy(p);
    cr_expect_eq(stats().errors, before.errors);
}

Test(pool_tracked, objects_have_guards_fill_and_the_released_pattern)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 24, 2);
    unsigned char *o = memtrack_pool_alloc(p);
    size_t guard = mt_guard_size();
    cr_assert_gt(guard, 0);
    for (size_t i = 1; i <= guard; i++)
        cr_assert_eq(o[-(ptrdiff_t)i], MT_GUARD_BYTE, "front guard byte %zu", i);
    for (size_t i = 0; i < guard; i++)
        cr_assert_eq(o[24 + i], MT_GUARD_BYTE, "back guard byte %zu", i);
    for (size_t i = 0; i < 24; i++)
        cr_assert_eq(o[i], MT_ALLOC_FILL_BYTE);
    memtrack_pool_free(p, o);
    for (size_t i = 0; i < 24; i++)
        cr_assert_eq(o[i], MT_FREE_FILL_BYTE, "released byte %zu", i);
    memtrack_pool_destroy(p);
}

Test(pool_tracked, capacity_is_the_same_as_untracked_and_a_full_pool_counts_a_failure)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 100, 3);
    size_t failed = stats().failed;
    for (int i = 0; i < 3; i++)
        cr_assert_not_null(memtrack_pool_alloc(p));
    cr_expect_null(memtrack_pool_alloc(p));
    cr_expect_eq(stats().failed, failed + 1);
    memtrack_pool_set_growth(p, 2, 5);
    cr_expect_not_null(memtrack_pool_alloc(p));
    cr_expect_not_null(memtrack_pool_alloc(p));
    cr_expect_null(memtrack_pool_alloc(p));
    cr_expect_eq(memtrack_pool_capacity(p), 5);
    memtrack_pool_clear(p);
    memtrack_pool_destroy(p);
}

Test(pool_tracked, a_pool_created_in_parentheses_is_untracked)
{
    memtrack_stats_t before = stats();
    memtrack_pool_t *p = (memtrack_pool_create)("fast", 16, 4);
    void *o = memtrack_pool_alloc(p); /* the macro's _at entry point, on an untracked pool */
    mt_block_t b;
    cr_expect_not(mt_block_peek(o, &b));
    memtrack_pool_free(p, o);
    memtrack_pool_destroy(p);
    cr_expect_eq(stats().total_blocks, before.total_blocks);
}

/* ---- misuses of pools ------------------------------------------------------------- */

Test(pool_tracked, overrun_found_at_release_and_underrun_by_check)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 10, 4);
    char *a = memtrack_pool_alloc(p); int line_a = __LINE__;
    char *b = memtrack_pool_alloc(p);
    size_t over = errors_of(MT_ERROR_OVERRUN), under = errors_of(MT_ERROR_UNDERRUN);
    a[10] = 0;
    memtrack_pool_free(p, a); int line_free = __LINE__;
    cr_expect_eq(errors_of(MT_ERROR_OVERRUN), over + 1);
    mt_error_t e = last_error();
    cr_expect_eq(site(e.alloc_site)->line, line_a);
    cr_expect_eq(site(e.found_site)->line, line_free);
    cr_expect_eq(site(e.found_site)->kind, MT_KIND_POOL_FREE);
    b[-1] = 0;
    cr_expect_eq(memtrack_check(), 1);
    cr_expect_eq(errors_of(MT_ERROR_UNDERRUN), under + 1);
    cr_expect_eq(memtrack_pool_check(p), 1, "still damaged, reported once");
    cr_expect_eq(errors_of(MT_ERROR_UNDERRUN), under + 1);
    memtrack_pool_free(p, b);
    memtrack_pool_destroy(p);
}

Test(pool_tracked, double_release_names_both_releases)
{
    memtrack_pool_t *p = memtrack_pool_create("enemies", 16, 4);
    void *a = memtrack_pool_alloc(p); int line_alloc = __LINE__;
    memtrack_pool_free(p, a); int line_first = __LINE__;
    size_t before = errors_of(MT_ERROR_POOL_DOUBLE_RELEASE);
    memtrack_pool_free(p, a); int line_again = __LINE__;
    cr_expect_eq(errors_of(MT_ERROR_POOL_DOUBLE_RELEASE), before + 1);
    mt_error_t e = last_error();
    cr_expect_eq(site(e.alloc_site)->line, line_alloc);
    cr_expect_eq(site(e.free_site)->line, line_first);
    cr_expect_eq(site(e.found_site)->line, line_again);
    cr_expect_str_eq(site(e.found_site)->owner, "enemies");
    cr_expect_eq(e.size, 16);
    cr_expect_eq(memtrack_pool_live(p), 0);
    /* The slot is released once: it comes back once. */
    void *x = memtrack_pool_alloc(p), *y = memtrack_pool_alloc(p);
    void *z = memtrack_pool_alloc(p), *w = memtrack_pool_alloc(p);
    cr_expect_null(memtrack_pool_alloc(p));
    cr_expect(x != y && x != z && x != w && y != z && y != w && z != w);
    memtrack_pool_clear(p);
    memtrack_pool_destroy(p);
}

Test(pool_tracked, release_of_what_is_not_an_object_of_the_pool)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 32, 4), *q = memtrack_pool_create("q", 32, 4);
    char *mine = memtrack_pool_alloc(p);
    void *theirs = memtrack_pool_alloc(q); int line_theirs = __LINE__;
    char *block = malloc(32); int line_block = __LINE__;
    int local = 0;
    size_t foreign = errors_of(MT_ERROR_POOL_FOREIGN_RELEASE);
    size_t interior = errors_of(MT_ERROR_POOL_INTERIOR_RELEASE);

    memtrack_pool_free(p, theirs);
    mt_error_t e = last_error();
    cr_expect_eq(e.kind, MT_ERROR_POOL_FOREIGN_RELEASE);
    cr_expect_eq(site(e.alloc_site)->line, line_theirs);
    cr_expect_str_eq(site(e.alloc_site)->owner, "q");
    cr_expect_str_eq(site(e.found_site)->owner, "p");

    memtrack_pool_free(p, block);
    e = last_error();
    cr_expect_eq(site(e.alloc_site)->kind, MT_KIND_MALLOC);
    cr_expect_eq(site(e.alloc_site)->line, line_block);

    memtrack_pool_free(p, &local);
    e = last_error();
    cr_expect_eq(e.alloc_site, MT_SITE_NONE);
    cr_expect_eq(e.addr, (uintptr_t)&local);
    cr_expect_eq(errors_of(MT_ERROR_POOL_FOREIGN_RELEASE), foreign + 3);

    memtrack_pool_free(p, mine + 5);
    e = last_error();
    cr_expect_eq(e.kind, MT_ERROR_POOL_INTERIOR_RELEASE);
    cr_expect_eq(e.offset, 5);
    cr_expect_eq(e.addr, (uintptr_t)mine);
    memtrack_pool_free(p, mine - 3); /* in its front guard */
    cr_expect_eq(last_error().offset, -3);
    cr_expect_eq(errors_of(MT_ERROR_POOL_INTERIOR_RELEASE), interior + 2);

    /* Nothing changed: everything is still live and still releasable. */
    cr_expect_eq(memtrack_pool_live(p), 1);
    cr_expect_eq(memtrack_pool_live(q), 1);
    memtrack_pool_free(q, theirs);
    memtrack_pool_free(p, mine);
    free(block);
    cr_expect_eq(errors_of(MT_ERROR_POOL_FOREIGN_RELEASE), foreign + 3);
    memtrack_pool_destroy(p);
    memtrack_pool_destroy(q);
}

Test(pool_tracked, free_and_realloc_of_a_pool_object_leave_it_alone)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 16, 2);
    char *o = memtrack_pool_alloc(p);
    size_t before = errors_of(MT_ERROR_OWNED_FREE);
    free(o); int line = __LINE__;
    cr_expect_eq(errors_of(MT_ERROR_OWNED_FREE), before + 1);
    mt_error_t e = last_error();
    cr_expect_eq(site(e.found_site)->kind, MT_KIND_FREE);
    cr_expect_eq(site(e.found_site)->line, line);
    errno = 0;
    cr_expect_null(realloc(o, 64));
    cr_expect_eq(errno, EINVAL);
    cr_expect_eq(errors_of(MT_ERROR_OWNED_FREE), before + 2);
    mt_block_t b;
    cr_expect(mt_block_peek(o, &b), "still a live object");
    memtrack_pool_free(p, o);
    cr_expect_eq(memtrack_pool_live(p), 0);
    free(o); /* now a stale pointer into the pool's memory: still left alone */
    cr_expect_eq(errors_of(MT_ERROR_OWNED_FREE), before + 3);
    cr_expect_eq(last_error().seq, 0);
    memtrack_pool_destroy(p);
}

Test(pool_tracked, write_after_release_found_on_reuse_check_and_destroy)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 16, 1);
    int *o = memtrack_pool_alloc(p); int line_alloc = __LINE__;
    memtrack_pool_free(p, o); int line_free = __LINE__;
    size_t before = errors_of(MT_ERROR_POOL_WRITE_AFTER_RELEASE);
    o[1] = 42;
    int *again = memtrack_pool_alloc(p); int line_reuse = __LINE__;
    cr_expect_eq(again, o);
    cr_expect_eq(errors_of(MT_ERROR_POOL_WRITE_AFTER_RELEASE), before + 1);
    mt_error_t e = last_error();
    cr_expect_eq(e.changed, 4);
    cr_expect_eq(e.offset, 4);
    cr_expect_eq(site(e.alloc_site)->line, line_alloc);
    cr_expect_eq(site(e.free_site)->line, line_free);
    cr_expect_eq(site(e.found_site)->line, line_reuse);
    cr_expect_eq(site(e.found_site)->kind, MT_KIND_POOL_ALLOC);

    memtrack_pool_free(p, again);
    ((char *)again)[-1] = 1; /* the released slot's guard area counts too */
    cr_expect_eq(memtrack_pool_check(p), 1);
    cr_expect_eq(last_error().offset, -1);
    cr_expect_eq(memtrack_pool_check(p), 0, "reported once: the slot was filled again");
    again[0] = 7;
    memtrack_pool_destroy(p);
    cr_expect_eq(errors_of(MT_ERROR_POOL_WRITE_AFTER_RELEASE), before + 3);
    cr_expect_eq(site(last_error().found_site)->kind, MT_KIND_POOL_DESTROY);
}

Test(pool_tracked, released_slots_wait_as_long_as_they_can)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 8, 4);
    void *a = memtrack_pool_alloc(p), *b = memtrack_pool_alloc(p);
    memtrack_pool_free(p, a);
    memtrack_pool_free(p, b);
    void *c = memtrack_pool_alloc(p), *d = memtrack_pool_alloc(p); /* never-used slots first */
    cr_expect(c != a && c != b && d != a && d != b);
    cr_expect_eq(memtrack_pool_alloc(p), a, "then the oldest released");
    cr_expect_eq(memtrack_pool_alloc(p), b);
    memtrack_pool_clear(p);
    memtrack_pool_destroy(p);
}

Test(pool_tracked, destroy_reports_live_objects_by_site_and_clear_does_not)
{
    memtrack_pool_t *p = memtrack_pool_create("bullets", 12, 8);
    void *a = memtrack_pool_alloc(p); int line_a = __LINE__;
    memtrack_pool_alloc(p);
    for (int i = 0; i < 3; i++)
        memtrack_pool_alloc(p);
    int line_loop = __LINE__ - 1;
    memtrack_stats_t before = stats();
    size_t errors = errors_of(MT_ERROR_POOL_LIVE_AT_DESTROY);
    memtrack_pool_destroy(p); int line_destroy = __LINE__;
    cr_expect_eq(errors_of(MT_ERROR_POOL_LIVE_AT_DESTROY), errors + 3, "one per site");
    static mt_error_t log[MT_ERROR_LOG_MAX];
    size_t n = mt_error_log(log, MT_ERROR_LOG_MAX);
    /* Oldest site first: a's line (1 object), the next line (1), the loop (3). */
    cr_expect_eq(site(log[n - 3].alloc_site)->line, line_a);
    cr_expect_eq(log[n - 3].changed, 1);
    cr_expect_eq(site(log[n - 1].alloc_site)->line, line_loop);
    cr_expect_eq(log[n - 1].changed, 3);
    cr_expect_eq(log[n - 1].size, 36);
    cr_expect_eq(site(log[n - 1].found_site)->line, line_destroy);
    mt_block_t b;
    cr_expect_not(mt_block_peek(a, &b), "records gone with the pool");
    cr_expect_eq(stats().current_blocks, before.current_blocks - 5);

    memtrack_pool_t *q = memtrack_pool_create("q", 12, 8);
    memtrack_pool_alloc(q);
    memtrack_pool_alloc(q);
    size_t all = stats().errors;
    memtrack_pool_clear(q);
    cr_expect_eq(memtrack_pool_live(q), 0);
    memtrack_pool_destroy(q);
    cr_expect_eq(stats().errors, all, "cleared objects are not leaks");
}

static void touch(void *object, void *ctx)
{
    memset(object, 'x', 12); /* visited objects are the user's bytes, between guards */
    ++*(int *)ctx;
}

Test(pool_tracked, foreach_visits_user_pointers)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 12, 8);
    memtrack_pool_set_growth(p, 8, 0);
    for (int i = 0; i < 12; i++)
        memtrack_pool_alloc(p);
    int n = 0;
    size_t errors = stats().errors;
    memtrack_pool_foreach(p, touch, &n);
    cr_expect_eq(n, 12);
    cr_expect_eq(memtrack_pool_check(p), 0, "no guard touched");
    cr_expect_eq(stats().errors, errors);
    memtrack_pool_clear(p);
    memtrack_pool_destroy(p);
}

Test(pool_tracked, without_guards_released_slots_are_still_checked)
{
    cr_assert_eq(memtrack_set_option("guard", "0"), 0);
    memtrack_pool_t *p = memtrack_pool_create("p", 16, 2);
    char *a = memtrack_pool_alloc(p), *b = memtrack_pool_alloc(p);
    cr_expect_eq(b - a, 16, "slots are the objects");
    memtrack_pool_free(p, a);
    a[0] = 1;
    size_t before = errors_of(MT_ERROR_POOL_WRITE_AFTER_RELEASE);
    memtrack_pool_destroy(p);
    cr_expect_eq(errors_of(MT_ERROR_POOL_WRITE_AFTER_RELEASE), before + 1);
}

/* ---- arenas ---------------------------------------------------------------------- */

/* An arena allocation is logged, counted and sited, and has its record in the table only once
 * something reads the table (api/arena_tracked.c); reset and rewind release it either way. */
Test(pool_tracked, arena_allocations_are_logged_records_once_published_released_by_reset)
{
    memtrack_stats_t before = stats();
    memtrack_arena_t *a = memtrack_arena_create("level", 4096);
    char *x = memtrack_arena_alloc(a, 10); int line = __LINE__;
    size_t mark = memtrack_arena_mark(a);
    char *y = memtrack_arena_alloc(a, 20);
    char *z = memtrack_arena_alloc_aligned(a, 30, 256);
    cr_expect_eq((uintptr_t)x % 16, 0);
    cr_expect_eq((uintptr_t)z % 256, 0);
    mt_block_t b;
    cr_expect_not(mt_block_peek(x, &b), "logged: no record until something reads the table");
    cr_expect_eq(stats().current_blocks, before.current_blocks + 3, "counted all the same");
    mt_owners_publish(); /* as a report, a check or a leak scan does first */
    cr_assert(mt_block_peek(x, &b));
    cr_expect_eq(b.size, 10);
    cr_expect_eq(site(b.site)->kind, MT_KIND_ARENA);
    cr_expect_str_eq(site(b.site)->owner, "level");
    cr_expect_eq(site(b.site)->line, line);
    cr_expect_eq(stats().current_blocks, before.current_blocks + 3);
    memtrack_arena_rewind(a, mark);
    cr_expect(mt_block_peek(x, &b), "before the mark: kept");
    cr_expect_not(mt_block_peek(y, &b));
    cr_expect_not(mt_block_peek(z, &b));
    cr_expect_eq(memtrack_arena_used(a), mark);
    memtrack_arena_reset(a);
    cr_expect_not(mt_block_peek(x, &b));
    cr_expect_eq(stats().current_blocks, before.current_blocks);
    cr_expect_eq(stats().frees, before.frees + 3);
    memtrack_arena_alloc(a, 5);
    memtrack_arena_destroy(a);
    cr_expect_eq(stats().current_blocks, before.current_blocks);
    cr_expect_eq(stats().errors, before.errors, "released by reset or destroy: not errors");
}

/* One line of an allocator reached by two callers in turn: the arena keeps its last
 * allocation's walk and site (api/arena_tracked.c), and an allocation through the other
 * caller, at the same line, must not take them. (Frame pointers whatever the build's flags,
 * as stack_test.c's: the walk sees each caller.) */
#if defined(__GNUC__) && !defined(__clang__)
#define WITH_FRAME_POINTER __attribute__((optimize("no-omit-frame-pointer")))
#else
#define WITH_FRAME_POINTER
#endif
static MT_NOINLINE WITH_FRAME_POINTER void *node_from(memtrack_arena_t *a)
{
    void *p = memtrack_arena_alloc(a, 24);
    __asm__ __volatile__("" : "+r"(p)); /* a call, not a jump */
    return p;
}
static MT_NOINLINE WITH_FRAME_POINTER void *from_parser(memtrack_arena_t *a)
{
    void *p = node_from(a);
    __asm__ __volatile__("" : "+r"(p));
    return p;
}
static MT_NOINLINE WITH_FRAME_POINTER void *from_renderer(memtrack_arena_t *a)
{
    void *p = node_from(a);
    __asm__ __volatile__("" : "+r"(p));
    return p;
}

Test(pool_tracked, arena_allocations_at_one_line_through_two_callers_have_a_site_each)
{
    if (mt_opt.stack < 3)
        cr_skip_test("stacks shorter than the test's");
    memtrack_arena_t *a = memtrack_arena_create("callers", 1 << 20);
    /* Runs of each, and long stretches of both in turn: enough misses in a row that the
     * slot is skipped for a while, then walked again (arena_tracked.c, alloc_site). */
    enum { N = 3000 };
    static bool parser[N];
    static void *p[N];
    for (int i = 0; i < N; i++)
        parser[i] = i < 7 ? (0x4b >> i) & 1 : i % 1000 < 500 ? i % 2 == 0 : (i / 3) % 2 == 0;
    for (int i = 0; i < N; i++)
        p[i] = parser[i] ? from_parser(a) : from_renderer(a);
    mt_owners_publish();
    static uint32_t sites[N];
    for (int i = 0; i < N; i++) {
        mt_block_t b;
        cr_assert(mt_block_peek(p[i], &b));
        sites[i] = b.site;
        cr_assert_neq(site(b.site)->stack, MT_STACK_NONE);
    }
    int renderer = 0;
    while (parser[renderer])
        renderer++;
    cr_assert_neq(sites[renderer], sites[0], "the renderer's own site");
    cr_expect_eq(site(sites[0])->line, site(sites[renderer])->line, "one line, two stacks");
    for (int i = 1; i < N; i++)
        cr_assert_eq(sites[i], parser[i] ? sites[0] : sites[renderer], "allocation %d", i);
    memtrack_arena_destroy(a);
}

/* Option stack changed while an arena keeps walks (api/arena_tracked.c): at 0 an allocation's
 * site is its place alone, whatever walk was kept; back at its depth, each caller's again. */
Test(pool_tracked, arena_sites_follow_option_stack_as_it_changes)
{
    if (mt_opt.stack < 3)
        cr_skip_test("stacks shorter than the test's");
    char depth[16];
    snprintf(depth, sizeof depth, "%zu", (size_t)mt_opt.stack);
    memtrack_arena_t *a = memtrack_arena_create("depths", 1 << 16);
    void *p[6];
    for (int phase = 0; phase < 3; phase++) { /* (one call of each, so that one stack each) */
        cr_assert_eq(memtrack_set_option("stack", phase == 1 ? "0" : depth), 0);
        p[2 * phase] = from_parser(a);
        p[2 * phase + 1] = from_renderer(a);
    }
    mt_owners_publish();
    uint32_t sites[6];
    for (int i = 0; i < 6; i++) {
        mt_block_t b;
        cr_assert(mt_block_peek(p[i], &b));
        sites[i] = b.site;
    }
    cr_expect_neq(sites[0], sites[1]);
    cr_expect_eq(site(sites[2])->stack, MT_STACK_NONE, "stack=0: no stack");
    cr_expect_eq(sites[3], sites[2], "stack=0: one place, one site");
    cr_expect_eq(site(sites[2])->line, site(sites[0])->line);
    cr_expect_eq(sites[4], sites[0], "the parser's again");
    cr_expect_eq(sites[5], sites[1], "the renderer's again");
    memtrack_arena_destroy(a);
}

/* Every size, small ones filled inline (api/arena_tracked.c, lay_out): each new byte 0xCD,
 * the guards whole, and the released bytes after the last allocation left as they were, so
 * that reusing them after a reset finds no write after release. */
Test(pool_tracked, arena_allocations_of_every_size_are_filled_and_guarded_exactly)
{
    memtrack_stats_t before = stats();
    memtrack_arena_t *a = memtrack_arena_create("sizes", 1 << 16);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t size = 0; size <= 300; size++) {
            unsigned char *p = memtrack_arena_alloc(a, size);
            cr_assert_not_null(p);
            for (size_t i = 0; i < size; i++)
                cr_assert_eq(p[i], MT_ALLOC_FILL_BYTE, "size %zu, byte %zu", size, i);
        }
        cr_expect_eq(memtrack_check(), 0, "pass %d: every guard whole", pass);
        memtrack_arena_reset(a); /* the second pass takes the bytes this one released */
    }
    memtrack_arena_destroy(a);
    cr_expect_eq(stats().errors, before.errors);
}

/* A reset releases its allocations in one count (api/arena_tracked.c): the figures are
 * those of as many frees, and the peak stays exact, before and after. */
Test(pool_tracked, arena_reset_counts_every_release_and_keeps_the_peak_exact)
{
    enum { N = 300 };
    memtrack_stats_t before = stats();
    memtrack_arena_t *a = memtrack_arena_create("counted", 1 << 16);
    for (int i = 0; i < N; i++)
        cr_assert_not_null(memtrack_arena_alloc(a, 40));
    size_t top_blocks = before.current_blocks + N, top_bytes = before.current_bytes + 40 * N;
    memtrack_arena_reset(a);
    memtrack_stats_t after = stats();
    cr_expect_eq(after.current_blocks, before.current_blocks);
    cr_expect_eq(after.current_bytes, before.current_bytes);
    cr_expect_eq(after.frees, before.frees + N);
    cr_expect_eq(after.total_blocks, before.total_blocks + N);
    cr_expect_eq(after.peak_blocks, before.peak_blocks > top_blocks ? before.peak_blocks : top_blocks);
    cr_expect_eq(after.peak_bytes, before.peak_bytes > top_bytes ? before.peak_bytes : top_bytes);
    /* One more than the arena held: the new peak is counted to the block and the byte. */
    for (int i = 0; i < N + 1; i++)
        cr_assert_not_null(memtrack_arena_alloc(a, 40));
    memtrack_stats_t more = stats();
    cr_expect_eq(more.peak_blocks, after.peak_blocks > top_blocks + 1 ? after.peak_blocks : top_blocks + 1);
    cr_expect_eq(more.peak_bytes, after.peak_bytes > top_bytes + 40 ? after.peak_bytes : top_bytes + 40);
    memtrack_arena_destroy(a);
    cr_expect_eq(stats().current_blocks, before.current_blocks);
    cr_expect_eq(stats().frees, before.frees + 2 * N + 1);
}

/* A tracked arena fails, marks and counts exactly as an untracked one of the same size. */
Test(pool_tracked, arena_capacity_is_the_same_as_untracked)
{
    memtrack_arena_t *t = memtrack_arena_create("t", 1000);
    memtrack_arena_t *u = (memtrack_arena_create)("u", 1000);
    srand(3);
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 200; i++) {
            size_t n = (size_t)rand() % 90, al = (size_t)1 << (rand() % 8);
            void *pt = i % 2 ? memtrack_arena_alloc(t, n) : memtrack_arena_alloc_aligned(t, n, al);
            void *pu = i % 2 ? memtrack_arena_alloc(u, n) : memtrack_arena_alloc_aligned(u, n, al);
            cr_assert_eq(pt == NULL, pu == NULL, "round %d allocation %d", round, i);
            cr_assert_eq(memtrack_arena_used(t), memtrack_arena_used(u));
            if (i == 50) {
                size_t mark = memtrack_arena_mark(t);
                cr_assert_eq(mark, memtrack_arena_mark(u));
                memtrack_arena_alloc(t, 40);
                memtrack_arena_alloc(u, 40);
                memtrack_arena_rewind(t, mark);
                memtrack_arena_rewind(u, mark);
            }
        }
        memtrack_arena_reset(t);
        memtrack_arena_reset(u);
    }
    memtrack_arena_destroy(t);
    memtrack_arena_destroy(u);
}

Test(pool_tracked, arena_guards_are_checked_at_reset_rewind_and_check)
{
    memtrack_arena_t *a = memtrack_arena_create("a", 4096);
    char *x = memtrack_arena_alloc(a, 8);
    char *y = memtrack_arena_alloc(a, 8);
    size_t over = errors_of(MT_ERROR_OVERRUN), under = errors_of(MT_ERROR_UNDERRUN);
    x[8] = 0;
    cr_expect_eq(memtrack_check(), 1);
    y[-1] = 0;
    size_t mark = memtrack_arena_mark(a);
    char *z = memtrack_arena_alloc(a, 8);
    z[9] = 0;
    memtrack_arena_rewind(a, mark);
    cr_expect_eq(site(last_error().found_site)->kind, MT_KIND_ARENA_REWIND);
    memtrack_arena_reset(a); int line_reset = __LINE__;
    cr_expect_eq(errors_of(MT_ERROR_OVERRUN), over + 2, "x once, z once");
    cr_expect_eq(errors_of(MT_ERROR_UNDERRUN), under + 1);
    cr_expect_eq(site(last_error().found_site)->line, line_reset);
    memtrack_arena_destroy(a);
}

Test(pool_tracked, arena_write_after_release_and_bad_marks)
{
    memtrack_arena_t *a = memtrack_arena_create("a", 4096);
    char *x = memtrack_arena_alloc(a, 64); int line_x = __LINE__;
    memtrack_arena_reset(a); int line_reset = __LINE__;
    x[3] = 1;
    size_t before = errors_of(MT_ERROR_ARENA_WRITE_AFTER_RELEASE);
    char *y = memtrack_arena_alloc(a, 64); int line_alloc = __LINE__;
    mt_block_t b;
    mt_owners_publish();
    cr_assert(mt_block_peek(y, &b));
    cr_expect_eq(y, x);
    cr_expect_eq(errors_of(MT_ERROR_ARENA_WRITE_AFTER_RELEASE), before + 1);
    mt_error_t e = last_error();
    cr_expect_eq(e.addr, (uintptr_t)x, "names the allocation that was there");
    cr_expect_eq(e.offset, 3);
    cr_expect_eq(e.size, 64);
    cr_expect_eq(site(e.alloc_site)->line, line_x);
    cr_expect_eq(site(e.free_site)->line, line_reset);
    cr_expect_eq(site(e.found_site)->line, line_alloc);

    size_t bad = errors_of(MT_ERROR_ARENA_BAD_MARK);
    memtrack_arena_rewind(a, 1000); /* beyond */
    cr_expect_eq(memtrack_arena_used(a), 64, "nothing released");
    memtrack_arena_rewind(a, 10); /* inside y */
    cr_expect_eq(errors_of(MT_ERROR_ARENA_BAD_MARK), bad + 2);
    cr_expect_eq(last_error().seq, MT_META_SEQ(b.meta), "names the allocation cut");
    cr_expect_eq(last_error().offset, 10);
    cr_expect_eq(memtrack_arena_used(a), 64, "rewound to y's end");
    cr_expect(mt_block_peek(y, &b), "y is kept");

    memtrack_arena_reset(a);
    y[0] = 1;
    free(y); /* a stale pointer into the arena: left alone */
    cr_expect_eq(last_error().kind, MT_ERROR_OWNED_FREE);
    memtrack_arena_destroy(a);
    cr_expect_eq(errors_of(MT_ERROR_ARENA_WRITE_AFTER_RELEASE), before + 2, "found at destroy");
}

Test(pool_tracked, arena_grows_its_memory_for_guards_but_not_its_capacity)
{
    memtrack_arena_t *a = memtrack_arena_create("a", 1 << 16);
    int n = 0;
    while (memtrack_arena_alloc(a, 1) != NULL)
        n++;
    cr_expect_eq(n, (1 << 16) / 16, "as untracked: one per 16 bytes");
    memtrack_arena_reset(a);
    memtrack_arena_destroy(a);
}

/* ---- registered blocks ------------------------------------------------------------ */

Test(pool_tracked, registered_blocks_are_records_without_guards)
{
    static char heap[256];
    memtrack_stats_t before = stats();
    memtrack_register_alloc(heap + 16, 32, "scripts"); int line = __LINE__;
    mt_block_t b;
    cr_assert(mt_block_peek(heap + 16, &b));
    cr_expect_eq(site(b.site)->kind, MT_KIND_REGISTERED);
    cr_expect_str_eq(site(b.site)->owner, "scripts");
    cr_expect_eq(site(b.site)->line, line);
    cr_expect_eq(stats().current_bytes, before.current_bytes + 32);
    heap[15] = 1; /* no guards to damage: memtrack_check finds nothing */
    heap[48] = 1;
    cr_expect_eq(memtrack_check(), 0);
    memtrack_register_free(heap + 16, "scripts");
    cr_expect_not(mt_block_peek(heap + 16, &b));
    cr_expect_eq(stats().current_bytes, before.current_bytes);
    cr_expect_eq(stats().errors, before.errors);
}

Test(pool_tracked, register_misuses_change_nothing)
{
    static char heap[256];
    char *block = malloc(8);
    memtrack_register_alloc(heap, 16, "a");
    size_t unknown = errors_of(MT_ERROR_UNREGISTER_UNKNOWN);
    memtrack_register_free(heap + 100, "a");
    cr_expect_eq(errors_of(MT_ERROR_UNREGISTER_UNKNOWN), unknown + 1);
    memtrack_register_free(block, "a"); /* malloc's, not a registered block */
    cr_expect_eq(errors_of(MT_ERROR_UNREGISTER_UNKNOWN), unknown + 2);
    cr_expect_eq(site(last_error().alloc_site)->kind, MT_KIND_MALLOC);

    size_t owner = errors_of(MT_ERROR_UNREGISTER_OWNER);
    memtrack_register_free(heap, "b");
    cr_expect_eq(errors_of(MT_ERROR_UNREGISTER_OWNER), owner + 1);
    mt_block_t b;
    cr_expect(mt_block_peek(heap, &b), "left registered");

    size_t conflict = errors_of(MT_ERROR_REGISTER_CONFLICT);
    memtrack_register_alloc(block, 8, "a"); /* a chunk's first piece: allowed (twins) */
    memtrack_register_alloc(block, 8, "a"); /* registered already */
    memtrack_register_alloc(heap, 8, "a");
    cr_expect_eq(errors_of(MT_ERROR_REGISTER_CONFLICT), conflict + 2);
    cr_expect(mt_block_peek(block, &b));
    cr_expect_eq(site(b.site)->kind, MT_KIND_MALLOC, "the malloc'd block keeps its record");
    memtrack_register_free(block, "a");
    cr_expect_eq(errors_of(MT_ERROR_UNREGISTER_UNKNOWN), unknown + 2);

    size_t owned = errors_of(MT_ERROR_OWNED_FREE);
    free(heap); /* a registered block is not malloc's */
    cr_expect_eq(errors_of(MT_ERROR_OWNED_FREE), owned + 1);
    memtrack_register_free(heap, "a");
    memtrack_register_free(heap, "a");
    cr_expect_eq(errors_of(MT_ERROR_UNREGISTER_UNKNOWN), unknown + 3, "twice");
    memtrack_register_free(NULL, "a");
    memtrack_register_alloc(NULL, 4, "a");
    cr_expect_eq(errors_of(MT_ERROR_UNREGISTER_UNKNOWN), unknown + 3, "NULL is ignored");
    free(block);
}

/* A registered block at its chunk's start and the chunk are two records of one address;
 * the table's lookup meets whichever its chain holds first, an order its doublings reverse.
 * Either way free() takes the chunk and memtrack_register_free() the block. */
/* Whether the table's lookup meets the registered block at p before its chunk. */
static bool registered_first(const void *p)
{
    mt_shard_t *sh = mt_shard_of((uintptr_t)p);
    UT_hash_bucket *bucket;
    mt_lock(&sh->lock);
    mt_block_t *first = mt_table_lookup_bucket_locked(sh, (uintptr_t)p, &bucket);
    cr_assert(first != NULL && mt_table_twin_locked(first) != NULL, "twins");
    bool owned = (first->meta & MT_META_FLAG_OWNED) != 0;
    mt_unlock(&sh->lock);
    return owned;
}

Test(pool_tracked, registered_at_chunk_start_either_order)
{
    enum { PAIRS = 64, FILL = 200000 };
    unsigned char *chunk[PAIRS];
    static void *fill[FILL];
    int filled = 0;
    size_t owned = errors_of(MT_ERROR_OWNED_FREE), doubles = errors_of(MT_ERROR_DOUBLE_FREE);
    size_t unknown = errors_of(MT_ERROR_UNREGISTER_UNKNOWN);
    memtrack_stats_t before = stats();
    for (int i = 0; i < PAIRS; i++) {
        if (i == PAIRS / 2) /* the first half's chains turn over as their table doubles */
            while (registered_first(chunk[0]) && filled < FILL)
                fill[filled++] = malloc(64); /* (as the chunks: one region under ASan too) */
        chunk[i] = malloc(64);
        memtrack_register_alloc(chunk[i], 16, "carver");
    }
    cr_assert(!registered_first(chunk[0]) && registered_first(chunk[PAIRS - 1]),
              "both orders met");
    for (int i = 0; i < PAIRS; i++) {
        mt_block_t b;
        if (i % 2 == 0)
            memtrack_register_free(chunk[i], "carver");
        free(chunk[i]); /* the chunk, whichever comes first */
        cr_expect_eq(mt_block_peek(chunk[i], &b), i % 2 == 1, "the block stays registered");
        free(chunk[i]); /* a double free of the chunk, whichever comes first */
        if (i % 2 == 1) {
            cr_expect_eq(site(b.site)->kind, MT_KIND_REGISTERED);
            memtrack_register_free(chunk[i], "carver");
        }
    }
    for (int i = 0; i < filled; i++)
        free(fill[i]);
    cr_expect_eq(errors_of(MT_ERROR_OWNED_FREE), owned);
    cr_expect_eq(errors_of(MT_ERROR_UNREGISTER_UNKNOWN), unknown);
    cr_expect_eq(errors_of(MT_ERROR_DOUBLE_FREE), doubles + PAIRS);
    cr_expect_eq(stats().current_bytes, before.current_bytes);
}

/* ---- alignment and threads --------------------------------------------------------- */

Test(pool_tracked, aligned_pools_keep_alignment_and_guards)
{
    for (size_t al = 32; al <= 4096; al *= 2) {
        memtrack_pool_t *p = memtrack_pool_create_aligned("aligned", 40, al, 3);
        unsigned char *o[3];
        for (int i = 0; i < 3; i++) {
            o[i] = memtrack_pool_alloc(p);
            cr_assert_eq((uintptr_t)o[i] % al, 0, "alignment %zu", al);
            cr_assert_eq(o[i][-1], MT_GUARD_BYTE);
            cr_assert_eq(o[i][40], MT_GUARD_BYTE);
        }
        cr_expect_eq(memtrack_check(), 0, "guards laid out as the tracker reads them");
        o[1][-1] = 0;
        cr_expect_eq(memtrack_pool_check(p), 1);
        memtrack_pool_clear(p);
        memtrack_pool_destroy(p);
    }
}

static void *churn_own_pool(void *arg)
{
    memtrack_pool_t *p = memtrack_pool_create("per thread", 48, 64);
    void *live[64];
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int i = 0; i < 64; i++)
        live[i] = memtrack_pool_alloc(p);
    for (int step = 0; step < 20000; step++) {
        int i = (int)(rand_r(&seed) % 64);
        memtrack_pool_free(p, live[i]);
        live[i] = memtrack_pool_alloc(p);
    }
    memtrack_pool_clear(p);
    memtrack_pool_destroy(p);
    return NULL;
}

Test(pool_tracked, threads_with_their_own_pools)
{
    pthread_t t[4];
    memtrack_stats_t before = stats();
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, churn_own_pool, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    memtrack_stats_t after = stats();
    cr_expect_eq(after.errors, before.errors);
    cr_expect_eq(after.current_blocks, before.current_blocks);
    cr_expect_eq(after.total_blocks - before.total_blocks, 4 * (64 + 20000));
}
/* clang-format on */
