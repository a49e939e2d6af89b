/* reach_test.c - the leak scan (api/reach.c): each block classified as Valgrind's memcheck
 * would (reachable from a root, through a chain, lost, indirectly lost, in a cycle,
 * possibly lost by an interior pointer or through a possibly lost block), blocks inside
 * others found innermost first, and the tracker's own data never read as a root (its
 * error log holds the addresses of blocks it reported). */
#include <criterion/criterion.h>
#include <string.h>

#include "api/reach.h"
#include "base/options.h"
#include "records/stats.h"

static void *alloc(size_t n)
{
    return memtrack_malloc_at(n, __FILE__, __LINE__, __func__);
}

/* The stores into a block are kept: a block that escapes nowhere (a lost one) may have
 * them taken out by the compiler, which knows malloc's memory is no one else's. */
static void stored(const void *block)
{
    __asm__ __volatile__("" : : "r"(block) : "memory");
}

/* A block's address kept across a scan where the scan cannot take it for a pointer (the
 * test's own frame and registers are roots): complemented. Blocks are made by functions of
 * their own, which give back only such addresses: what a function leaves in registers or
 * below the stack pointer when it returns is no root. */
typedef uintptr_t hidden_t;
static hidden_t hide(const void *p)
{
    return ~(uintptr_t)p;
}
static void *shown(hidden_t h)
{
    return (void *)~h;
}

/* Globals the scan must find (volatile: the compiler keeps every store). */
static void *volatile g_one, *volatile g_two, *volatile g_three;

static mt_reach_t scanned;

/* The entry point of a scan, as memtrack_check_leaks is: its callers' frames are roots. */
static MT_NOINLINE void scan(void)
{
    MT_REACH_FROM_HERE();
    cr_assert(mt_reach_scan(&scanned), "the scan ran");
    mt_reach_leave();
    __asm__ __volatile__("" ::: "memory"); /* not a tail call */
}

static const mt_reach_block_t *block_at(const void *p)
{
    uint32_t i = mt_reach_find(&scanned, (uintptr_t)p);
    cr_assert_neq(i, MT_REACH_NO_BLOCK, "block %p was scanned", p);
    cr_assert_eq(scanned.blocks[i].start, (uintptr_t)p, "block %p found by its start", p);
    return &scanned.blocks[i];
}

static mt_reach_state_t state_of(const void *p)
{
    return (mt_reach_state_t)block_at(p)->state;
}

static void reach_done(void)
{
    mt_reach_free(&scanned);
}

Test(reach, own_data_covers_the_trackers_statics_and_thread_locals, .fini = reach_done)
{
    mt_span_t own[MT_OWN_SPANS_MAX], mine[MT_OWN_SPANS_MAX];
    size_t n = mt_own_data_spans(own), m = mt_own_thread_spans(mine);
    memtrack_set_option("alloc_fn", "reach_*"); /* its text lives in the tracker's data */
    const void *statics[] = {&mt_opt, &mt_shards[0], &mt_shards[MT_SHARD_COUNT - 1],
                             mt_opt.alloc_fn};
    for (size_t k = 0; k < sizeof statics / sizeof statics[0]; k++) {
        bool inside = false;
        for (size_t i = 0; i < n; i++)
            inside |= (uintptr_t)statics[k] >= own[i].start && (uintptr_t)statics[k] < own[i].end;
        cr_expect(inside, "the tracker's static %zu (%p) is in its own data", k, statics[k]);
    }
    const void *locals[] = {&mt_busy, &mt_stat_mine};
    for (size_t k = 0; k < sizeof locals / sizeof locals[0]; k++) {
        bool inside = false;
        for (size_t i = 0; i < m; i++)
            inside |= (uintptr_t)locals[k] >= mine[i].start && (uintptr_t)locals[k] < mine[i].end;
        cr_expect(inside, "the tracker's thread-local %zu is in its own data", k);
    }
    bool program = false; /* and the program's own globals are not */
    for (size_t i = 0; i < n; i++)
        program |= (uintptr_t)&g_one >= own[i].start && (uintptr_t)&g_one < own[i].end;
    cr_expect(!program, "a global of the program is not the tracker's");
}

static MT_NOINLINE void make_chains(hidden_t h[4])
{
    void **a = alloc(16), **b = alloc(16), **lost = alloc(16), **under = alloc(16);
    a[0] = b; /* g_one -> a -> b: both reachable, b through a */
    a[1] = NULL;
    b[0] = b[1] = NULL;
    lost[0] = under; /* nothing -> lost -> under */
    lost[1] = lost;  /* a block pointing at itself is no holder of its own */
    under[0] = under[1] = NULL;
    g_one = a;
    stored(lost);
    h[0] = hide(a), h[1] = hide(b), h[2] = hide(lost), h[3] = hide(under);
}

Test(reach, roots_chains_lost_and_indirect, .fini = reach_done)
{
    hidden_t h[4];
    make_chains(h);
    scan();
    cr_assert_eq(state_of(shown(h[0])), MT_REACH_REACHABLE);
    cr_expect_eq(block_at(shown(h[0]))->parent, MT_REACH_NO_BLOCK, "a root holds a");
    cr_expect_eq(block_at(shown(h[0]))->via, (uintptr_t)&g_one, "through the word g_one");
    cr_assert_eq(state_of(shown(h[1])), MT_REACH_REACHABLE);
    cr_expect_eq(scanned.blocks[block_at(shown(h[1]))->parent].start, ~h[0], "a holds b");
    cr_expect_eq(state_of(shown(h[2])), MT_REACH_LOST);
    cr_assert_eq(state_of(shown(h[3])), MT_REACH_INDIRECT);
    cr_expect_eq(scanned.blocks[block_at(shown(h[3]))->parent].start, ~h[2]);
}

static MT_NOINLINE void make_cycle(void)
{
    void **x = alloc(16), **y = alloc(16);
    x[0] = y;
    y[0] = x;
    x[1] = y[1] = NULL;
    stored(x);
    stored(y);
}

Test(reach, a_lost_cycle_has_one_lost_block, .fini = reach_done)
{
    make_cycle();
    scan();
    size_t lost = scanned.blocks_in[MT_REACH_LOST], indirect = scanned.blocks_in[MT_REACH_INDIRECT];
    cr_expect_eq(lost, 1, "one leads the cycle");
    cr_expect_eq(indirect, 1, "the other is only it holds");
}

static MT_NOINLINE void make_interior(hidden_t h[2])
{
    char *mid = alloc(64);
    void **after = alloc(16);
    memcpy(mid + 8, &after, sizeof after); /* mid holds after by its start */
    g_two = mid + 24;                      /* but only a pointer into mid holds mid */
    after[0] = after[1] = NULL;
    stored(mid);
    stored(after);
    h[0] = hide(mid), h[1] = hide(after);
}

Test(reach, interior_pointers_make_blocks_possibly_lost, .fini = reach_done)
{
    hidden_t h[2];
    make_interior(h);
    scan();
    cr_expect_eq(state_of(shown(h[0])), MT_REACH_POSSIBLE);
    cr_expect_eq(block_at(shown(h[0]))->offset, 24);
    cr_expect_eq(state_of(shown(h[1])), MT_REACH_POSSIBLE, "what only a possibly lost block holds");
}

static MT_NOINLINE hidden_t make_nested(void)
{
    char *chunk = alloc(256);
    memset(chunk, 0, 256);
    memtrack_register_alloc_at(chunk + 64, 32, "engine", __FILE__, __LINE__, __func__);
    g_three = chunk + 64; /* the piece, by its start */
    g_one = chunk + 128;  /* after the piece, inside the chunk only */
    return hide(chunk);
}

Test(reach, blocks_inside_others_are_found_innermost_first, .fini = reach_done)
{
    hidden_t h = make_nested();
    scan();
    cr_expect_eq(state_of((char *)shown(h) + 64), MT_REACH_REACHABLE);
    cr_expect_eq(state_of(shown(h)), MT_REACH_POSSIBLE, "found behind the piece");
    memtrack_register_free_at((char *)shown(h) + 64, "engine", __FILE__, __LINE__, __func__);
}

static MT_NOINLINE hidden_t make_empty(void)
{
    void *empty = alloc(0);
    g_one = empty;
    return hide(empty);
}

Test(reach, zero_sized_blocks_and_frames_of_the_caller, .fini = reach_done)
{
    hidden_t h = make_empty();
    void *volatile local = alloc(24); /* this function's frame is the program's */
    scan();
    cr_expect_eq(state_of(shown(h)), MT_REACH_REACHABLE);
    cr_expect_eq(state_of(local), MT_REACH_REACHABLE);
    const mt_root_t *root = mt_roots_find(&scanned.roots, block_at(local)->via);
    cr_assert_not_null(root);
    cr_expect_eq(root->kind, MT_ROOT_STACK);
}

static MT_NOINLINE hidden_t make_overrun(void)
{
    char *p = alloc(10);
    p[10] = 1; /* an overrun: the error log keeps the block's address */
    cr_expect_eq(memtrack_check_at(__FILE__, __LINE__, __func__), 1);
    return hide(p);
}

Test(reach, the_error_log_is_no_root, .fini = reach_done)
{
    hidden_t h = make_overrun();
    scan();
    cr_expect_eq(state_of(shown(h)), MT_REACH_LOST, "only the tracker kept its address");
}
