/* stack_test.c - interning call stacks, and where a walk's stack ends. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "records/stack.h"

/* Its caller's return address: just past a call, as a frame record holds one (a stack is
 * made of return addresses only: base/code_map.c checks that a call ends there). */
static MT_NOINLINE void *return_address(void)
{
    void *pc = __builtin_return_address(0);
    __asm__ __volatile__("" : "+r"(pc)); /* a call, not a jump */
    return pc;
}

static MT_NOINLINE void *code_a(void)
{
    void *pc = return_address();
    __asm__ __volatile__("" : "+r"(pc));
    return pc;
}

static MT_NOINLINE void *code_b(void)
{
    void *pc = return_address();
    __asm__ __volatile__("" : "+r"(pc));
    return pc;
}

/* A return address into f, just past the call it makes. */
static void *returning_into(void *(*f)(void))
{
    return f();
}

Test(stack, the_same_frames_are_the_same_stack)
{
    void *pcs[3] = {returning_into(code_a), returning_into(code_b), returning_into(code_a)};
    uint32_t id = mt_stack_intern(pcs, 3);
    cr_assert_neq(id, MT_STACK_NONE);
    cr_expect_eq(mt_stack_intern(pcs, 3), id); /* this thread's cache */
    void *const *stored;
    cr_assert_eq(mt_stack_get(id, &stored), 3);
    cr_expect_eq(stored[2], pcs[2]);
    cr_expect_neq(mt_stack_intern(pcs, 2), id);
}

/* Code without frame pointers can leave the walk reading data as frame records: heap
 * pointers, numbers. Each walk then differed, and each made a new stack (and site): the
 * tracker's tables grew at every allocation. The stack ends before the first word that is
 * not a return address into loaded code, so all such walks are one stack. */
Test(stack, a_walk_past_the_code_ends_before_the_first_word_that_is_not_code)
{
    void *a = returning_into(code_a), *b = returning_into(code_b);
    uint32_t first = MT_STACK_NONE;
    for (int i = 0; i < 1000; i++) {
        void *junk = malloc(32); /* a heap pointer where a return address would be */
        void *pcs[5] = {a, b, junk, (void *)(uintptr_t)(4096 + 16 * i), a};
        uint32_t id = mt_stack_intern(pcs, 5);
        free(junk);
        if (i == 0)
            first = id;
        cr_assert_eq(id, first, "walk %d made stack %u, not %u", i, id, first);
    }
    void *const *stored;
    cr_assert_eq(mt_stack_get(first, &stored), 2);
    cr_expect_eq(stored[0], a);
    cr_expect_eq(stored[1], b);
    void *just_code[2] = {a, b};
    cr_expect_eq(mt_stack_intern(just_code, 2), first); /* the same two frames */
}

Test(stack, a_walk_that_starts_outside_the_code_has_no_stack)
{
    void *heap = malloc(16);
    void *pcs[2] = {heap, returning_into(code_a)};
    cr_expect_eq(mt_stack_intern(pcs, 2), MT_STACK_NONE);
    free(heap);
}

/* A module loaded after the process's first stacks (dlopen): its code is code too. GMP,
 * loaded now, calls the allocation function it is given: the return address into GMP that
 * function sees is a return address in code loaded later. */
static void *gmp_return_address;

static void *gmp_alloc(size_t n)
{
    gmp_return_address = __builtin_return_address(0);
    return malloc(n);
}

static void *gmp_realloc(void *p, size_t old, size_t n)
{
    (void)old;
    return realloc(p, n);
}

static void gmp_free(void *p, size_t n)
{
    (void)n;
    free(p);
}

Test(stack, code_loaded_later_is_code)
{
    void *first[1] = {returning_into(code_a)};
    cr_assert_neq(mt_stack_intern(first, 1), MT_STACK_NONE); /* the modules are known now */
    if (dlopen("libgmp.so.10", RTLD_NOW | RTLD_NOLOAD) != NULL)
        cr_skip_test("GMP is loaded already: not a test of a later load");
    void *lib = dlopen("libgmp.so.10", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        cr_skip_test("no GMP to load (libgmp10)");
    void (*set_functions)(void *(*)(size_t), void *(*)(void *, size_t, size_t),
                          void (*)(void *, size_t)) =
        (void (*)(void *(*)(size_t), void *(*)(void *, size_t, size_t),
                  void (*)(void *, size_t)))dlsym(lib, "__gmp_set_memory_functions");
    void (*init2)(void *, unsigned long) =
        (void (*)(void *, unsigned long))dlsym(lib, "__gmpz_init2");
    void (*clear)(void *) = (void (*)(void *))dlsym(lib, "__gmpz_clear");
    cr_assert(set_functions != NULL && init2 != NULL && clear != NULL);
    set_functions(gmp_alloc, gmp_realloc, gmp_free);
    long z[4]; /* an mpz_t: two ints and a pointer */
    init2(z, 256);
    clear(z);
    cr_assert_not_null(gmp_return_address);
    void *pcs[3] = {gmp_return_address, returning_into(code_b), returning_into(code_a)};
    uint32_t id = mt_stack_intern(pcs, 3);
    void *const *stored;
    cr_assert_eq(mt_stack_get(id, &stored), 3);
    cr_expect_eq(stored[0], pcs[0]);
}

/* mt_site_here finds in one lookup what mt_site_stacked finds for the place and the stack of
 * mt_stack_here: the same site at the same place and stack, cached or not, and another site
 * for the same place reached by another stack. */
static const char here_file[] = "here.c", here_func[] = "here";

/* The functions below keep frame pointers whatever the build's flags (the tests are built
 * at -O1, which may use the frame register for data, and the sanitizer builds keep them):
 * so the stacks they walk are the same at every step of a call, and differ by caller. */
#if defined(__GNUC__) && !defined(__clang__)
#define WITH_FRAME_POINTER __attribute__((optimize("no-omit-frame-pointer")))
#else
#define WITH_FRAME_POINTER
#endif

static MT_NOINLINE WITH_FRAME_POINTER uint32_t site_at(bool one_step, int line)
{
    void *frame = __builtin_frame_address(0), *caller = __builtin_return_address(0);
    return one_step ? mt_site_here(here_file, line, here_func, MT_KIND_MALLOC, frame, caller)
                    : mt_site_stacked(here_file, line, here_func, MT_KIND_MALLOC, NULL,
                                      mt_stack_here(frame, caller));
}

/* The steps a caller of site_at takes, all through one call instruction (a loop whose count
 * the compiler cannot know, so it is not unrolled into several calls): each step at the same
 * stack, whatever the build keeps of frame pointers above it. */
static const struct {
    bool one_step;
    int line;
} steps[] = {{true, 10}, {false, 10}, {true, 11}, {false, 11}, {true, 10}};
#define STEPS (sizeof steps / sizeof steps[0])

static MT_NOINLINE WITH_FRAME_POINTER void sites_from_a(uint32_t *ids)
{
    volatile size_t n = STEPS;
    for (size_t k = 0; k < n; k++)
        ids[k] = site_at(steps[k].one_step, steps[k].line);
}

/* A second caller of site_at, so another stack for the same place. */
static MT_NOINLINE WITH_FRAME_POINTER void sites_from_b(uint32_t *ids)
{
    volatile size_t n = STEPS;
    for (size_t k = 0; k < n; k++)
        ids[k] = site_at(steps[k].one_step, steps[k].line) + 0;
}

static MT_NOINLINE WITH_FRAME_POINTER void check_sites_here(void)
{
    uint32_t first[STEPS] = {0};
    for (int round = 0; round < 3; round++) { /* the first finds, the others are cached */
        uint32_t a[STEPS], b[STEPS];
        sites_from_a(a);
        sites_from_b(b);
        cr_assert_eq(a[0], a[1], "round %d", round); /* one step and two, at line 10 */
        cr_assert_eq(b[0], b[1], "round %d", round);
        cr_assert_neq(mt_site_get(a[0])->stack, MT_STACK_NONE);
        cr_expect_neq(a[0], b[0]); /* the same place, another stack */
        cr_expect_eq(mt_site_place(a[0]), mt_site_place(b[0]));
        /* Another line at the same stack: its own site, and the first line's again after. */
        cr_expect_neq(a[2], a[0]);
        cr_expect_eq(a[2], a[3]);
        cr_expect_eq(a[4], a[0]);
        if (round == 0)
            memcpy(first, a, sizeof first);
        cr_expect_eq(a[0], first[0], "round %d", round); /* (the same call each round) */
    }
}

Test(stack, the_site_here_is_the_site_of_its_place_and_stack)
{
    if (mt_opt.stack == 0)
        cr_skip_test("stacks are off");
    check_sites_here();
}

/* Walks of frame records made here, on this stack (as the walk wants them: each above the one
 * before), with these return addresses: the first record's is the caller's. */
static uint32_t site_of_walk(bool one_step, void **records, void *const *pcs, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        records[2 * i] = i + 1 < n ? (void *)&records[2 * i + 2] : NULL; /* NULL: the last */
        records[2 * i + 1] = pcs[i];
    }
    if (one_step)
        return mt_site_here(here_file, 30, here_func, MT_KIND_MALLOC, records, pcs[0]);
    return mt_site_stacked(here_file, 30, here_func, MT_KIND_MALLOC, NULL, mt_stack_intern(pcs, n));
}

/* One caller reached by several stacks in turn (a wrapper called from several places), some
 * the beginnings of others: each walk finds the site the two-step path finds for it. */
Test(stack, a_caller_reached_by_several_stacks_has_a_site_for_each)
{
    if (mt_opt.stack < 3)
        cr_skip_test("stacks shorter than the test's");
    void *a = returning_into(code_a), *b = returning_into(code_b);
    void *const walks[][3] = {{a, b, a}, {a, a, b}, {a, b, NULL}, {a, NULL, NULL}, {a, b, b}};
    const unsigned frames[] = {3, 3, 2, 1, 3};
    enum { WALKS = sizeof frames / sizeof frames[0] };
    void *records[2 * 3];
    uint32_t want[WALKS];
    for (unsigned w = 0; w < WALKS; w++)
        want[w] = site_of_walk(false, records, walks[w], frames[w]);
    for (unsigned w = 0; w < WALKS; w++)
        for (unsigned v = 0; v < w; v++)
            cr_assert_neq(want[w], want[v], "walks %u and %u", v, w);
    for (int round = 0; round < 4; round++)
        for (unsigned w = 0; w < WALKS; w++)
            for (int again = 0; again < 2; again++) /* the second from the cache */
                cr_assert_eq(site_of_walk(true, records, walks[w], frames[w]), want[w],
                             "round %d, walk %u", round, w);
}

/* An entry point that cannot hand its own frame down (a pool's, reached through a helper)
 * takes the same stack as one that can: the helper skips its own caller's frame. */
static MT_NOINLINE WITH_FRAME_POINTER uint32_t helper_of_entry(void)
{
    uint32_t id = mt_stack_skipping(1);
    __asm__ __volatile__("" : "+r"(id)); /* a call, not a jump */
    return id;
}

static MT_NOINLINE WITH_FRAME_POINTER void entry_point(uint32_t *through_helper, uint32_t *own)
{
    *through_helper = helper_of_entry();
    *own = mt_stack_here(__builtin_frame_address(0), __builtin_return_address(0));
}

Test(stack, a_stack_skipping_frames_is_the_entry_points_own)
{
    if (mt_opt.stack == 0)
        cr_skip_test("stacks are off");
    uint32_t through_helper, own;
    entry_point(&through_helper, &own);
    cr_assert_neq(own, MT_STACK_NONE);
    cr_expect_eq(through_helper, own);
}
