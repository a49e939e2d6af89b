/* pool_untracked_test.c - pools and arenas built without MEMORY_CONTROL_ON: real
 * allocators that keep themselves sound (a bad release is ignored) and record nothing. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memtrack.h"

/* The tracker's own counters (libmemtrack.a): untracked pools must not move them. */
void mt_stats_read(memtrack_stats_t *out);
size_t mt_error_total(void);

static size_t recorded(void)
{
    memtrack_stats_t st;
    mt_stats_read(&st);
    return st.total_blocks + st.frees + st.failed + mt_error_total();
}

/* ---- pools ------------------------------------------------------------------------- */

Test(pool_untracked, hands_out_distinct_objects_until_full)
{
    size_t before = recorded();
    memtrack_pool_t *p = memtrack_pool_create("p", 24, 100);
    cr_assert_not_null(p);
    cr_expect_eq(memtrack_pool_capacity(p), 100);
    cr_expect_eq(memtrack_pool_object_size(p), 24);
    char *objects[100];
    for (int i = 0; i < 100; i++) {
        objects[i] = memtrack_pool_alloc(p);
        cr_assert_not_null(objects[i]);
        memset(objects[i], i, 24); /* every byte is the object's: no overlap below */
    }
    cr_expect_null(memtrack_pool_alloc(p), "full");
    cr_expect_eq(memtrack_pool_live(p), 100);
    for (int i = 0; i < 100; i++)
        for (int k = 0; k < 24; k++)
            cr_assert_eq(objects[i][k], (char)i, "object %d byte %d", i, k);
    memtrack_pool_destroy(p);
    cr_expect_eq(recorded(), before, "nothing recorded");
}

Test(pool_untracked, objects_are_aligned_for_their_size)
{
    static const size_t sizes[] = {1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 100, 128};
    static const size_t aligns[] = {1, 2, 4, 8, 4, 16, 8, 16, 8, 16, 4, 16};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        memtrack_pool_t *p = memtrack_pool_create("p", sizes[i], 16);
        for (int k = 0; k < 16; k++) {
            void *o = memtrack_pool_alloc(p);
            cr_assert_eq((uintptr_t)o % aligns[i], 0, "size %zu", sizes[i]);
        }
        memtrack_pool_destroy(p);
    }
    for (size_t a = 1; a <= 4096; a *= 2) {
        memtrack_pool_t *p = memtrack_pool_create_aligned("p", 24, a, 4);
        for (int k = 0; k < 4; k++)
            cr_assert_eq((uintptr_t)memtrack_pool_alloc(p) % a, 0, "alignment %zu", a);
        memtrack_pool_destroy(p);
    }
    cr_expect_null(memtrack_pool_create_aligned("p", 24, 24, 4), "not a power of two");
    cr_expect_null(memtrack_pool_create_aligned("p", 24, 0, 4));
}

Test(pool_untracked, reuses_the_most_recently_released_first)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 32, 8);
    void *a = memtrack_pool_alloc(p), *b = memtrack_pool_alloc(p);
    memtrack_pool_free(p, a);
    memtrack_pool_free(p, b);
    cr_expect_eq(memtrack_pool_alloc(p), b);
    cr_expect_eq(memtrack_pool_alloc(p), a);
    memtrack_pool_destroy(p);
}

Test(pool_untracked, bad_releases_are_ignored_and_the_pool_stays_sound)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 16, 4),
                    *other = memtrack_pool_create("o", 16, 4);
    char *a = memtrack_pool_alloc(p), *b = memtrack_pool_alloc(p);
    char *theirs = memtrack_pool_alloc(other);
    int local;
    memtrack_pool_free(p, a);
    memtrack_pool_free(p, a);      /* twice */
    memtrack_pool_free(p, b + 4);  /* inside an object */
    memtrack_pool_free(p, theirs); /* another pool's */
    memtrack_pool_free(p, &local); /* the stack */
    memtrack_pool_free(p, NULL);
    memtrack_pool_free(NULL, b);
    cr_expect_eq(memtrack_pool_live(p), 1);
    cr_expect_eq(memtrack_pool_live(other), 1);
    /* Had the double release counted, a slot would now be handed out twice. */
    void *got[4] = {b, 0, 0, 0};
    for (int i = 1; i < 4; i++)
        got[i] = memtrack_pool_alloc(p);
    cr_expect_null(memtrack_pool_alloc(p));
    for (int i = 0; i < 4; i++)
        for (int k = i + 1; k < 4; k++)
            cr_assert_neq(got[i], got[k]);
    memtrack_pool_destroy(p);
    memtrack_pool_destroy(other);
}

typedef struct seen {
    void *objects[64];
    int n;
    memtrack_pool_t *pool;
    void *release_next; /* released from inside the callback */
} seen_t;

static void remember(void *object, void *ctx)
{
    seen_t *s = ctx;
    s->objects[s->n++] = object;
    if (s->release_next != NULL) {
        memtrack_pool_free(s->pool, s->release_next);
        s->release_next = NULL;
    }
}

static bool contains(void *const *set, int n, const void *p)
{
    for (int i = 0; i < n; i++)
        if (set[i] == p)
            return true;
    return false;
}

Test(pool_untracked, foreach_visits_exactly_the_live_objects)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 40, 64);
    void *all[64];
    for (int i = 0; i < 64; i++)
        all[i] = memtrack_pool_alloc(p);
    for (int i = 0; i < 64; i += 3)
        memtrack_pool_free(p, all[i]);
    seen_t s = {.pool = p};
    memtrack_pool_foreach(p, remember, &s);
    cr_expect_eq(s.n, (int)memtrack_pool_live(p));
    for (int i = 0; i < 64; i++)
        cr_expect_eq(contains(s.objects, s.n, all[i]), i % 3 != 0, "object %d", i);
    memtrack_pool_destroy(p);
}

static void release_self(void *object, void *ctx)
{
    memtrack_pool_free(ctx, object);
}

Test(pool_untracked, foreach_callbacks_may_release_objects)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 8, 64);
    void *all[10];
    for (int i = 0; i < 10; i++)
        all[i] = memtrack_pool_alloc(p);
    memtrack_pool_foreach(p, release_self, p);
    cr_expect_eq(memtrack_pool_live(p), 0);
    for (int i = 0; i < 10; i++)
        all[i] = memtrack_pool_alloc(p);
    /* Releasing a later object: it is not visited. */
    seen_t s = {.pool = p, .release_next = all[0] < all[9] ? all[9] : all[0]};
    memtrack_pool_foreach(p, remember, &s);
    cr_expect_eq(s.n, 9);
    cr_expect_not(contains(s.objects, s.n, all[0] < all[9] ? all[9] : all[0]));
    memtrack_pool_destroy(p);
}

Test(pool_untracked, clear_releases_everything)
{
    memtrack_pool_t *p = memtrack_pool_create("p", 16, 4);
    memtrack_pool_set_growth(p, 4, 0);
    for (int i = 0; i < 10; i++)
        memtrack_pool_alloc(p);
    cr_expect_eq(memtrack_pool_capacity(p), 12);
    memtrack_pool_clear(p);
    cr_expect_eq(memtrack_pool_live(p), 0);
    int n = 0;
    memtrack_pool_foreach(p, release_self, p);
    /* Every slot of every slab can be handed out again, once. */
    void *got[12];
    for (int i = 0; i < 12; i++) {
        got[i] = memtrack_pool_alloc(p);
        cr_assert(memtrack_pool_owns(p, got[i]));
        cr_assert_not(contains(got, i, got[i]));
        n++;
    }
    cr_expect_eq(memtrack_pool_capacity(p), 12, "no growth: the slabs were reused");
    memtrack_pool_destroy(p);
}

Test(pool_untracked, grows_by_chunks_up_to_its_limit_and_objects_never_move)
{
    memtrack_pool_t *p = memtrack_pool_create("p", sizeof(int), 2);
    memtrack_pool_set_growth(p, 3, 10);
    int *objects[10];
    for (int i = 0; i < 10; i++) {
        objects[i] = memtrack_pool_alloc(p);
        cr_assert_not_null(objects[i], "object %d", i);
        *objects[i] = i;
    }
    cr_expect_null(memtrack_pool_alloc(p), "max_objects reached");
    cr_expect_eq(memtrack_pool_capacity(p), 10);
    for (int i = 0; i < 10; i++) {
        cr_expect_eq(*objects[i], i);
        cr_expect(memtrack_pool_owns(p, objects[i]));
    }
    for (int i = 0; i < 10; i++) /* releases find the right slab */
        memtrack_pool_free(p, objects[i]);
    cr_expect_eq(memtrack_pool_live(p), 0);
    memtrack_pool_destroy(p);

    memtrack_pool_t *fixed = memtrack_pool_create("fixed", 8, 0);
    cr_expect_null(memtrack_pool_alloc(fixed), "no capacity, no growth");
    memtrack_pool_set_growth(fixed, 1, 0);
    cr_expect_not_null(memtrack_pool_alloc(fixed));
    memtrack_pool_destroy(fixed);
}

/* The pool against a model under random allocate/release, over several slabs. */
Test(pool_untracked, agrees_with_a_model_under_random_use)
{
    enum { CAP = 700 };
    memtrack_pool_t *p = memtrack_pool_create("p", 20, 100);
    memtrack_pool_set_growth(p, 150, CAP);
    static unsigned char *live[CAP];
    size_t n = 0;
    srand(7);
    for (int step = 0; step < 20000; step++) {
        if (n < CAP && (n == 0 || rand() % 3 != 0)) {
            unsigned char *o = memtrack_pool_alloc(p);
            cr_assert_not_null(o, "step %d with %zu live", step, n);
            memset(o, (int)(n & 0xff), 20);
            live[n++] = o;
        } else {
            size_t i = (size_t)rand() % n;
            cr_assert_eq(live[i][19], live[i][0], "object damaged");
            memtrack_pool_free(p, live[i]);
            live[i] = live[--n];
        }
        cr_assert_eq(memtrack_pool_live(p), n);
    }
    if (n < CAP) { /* fill up: exactly CAP objects fit */
        while (n < CAP) {
            cr_assert_not_null(live[n] = memtrack_pool_alloc(p));
            n++;
        }
    }
    cr_expect_null(memtrack_pool_alloc(p));
    memtrack_pool_destroy(p);
}

Test(pool_untracked, null_and_queries)
{
    cr_expect_null(memtrack_pool_alloc(NULL));
    memtrack_pool_free(NULL, NULL);
    memtrack_pool_clear(NULL);
    memtrack_pool_destroy(NULL);
    memtrack_pool_set_growth(NULL, 1, 1);
    memtrack_pool_foreach(NULL, release_self, NULL);
    cr_expect_eq(memtrack_pool_live(NULL), 0);
    cr_expect_eq(memtrack_pool_capacity(NULL), 0);
    cr_expect_eq(memtrack_pool_owns(NULL, &recorded), 0);
    memtrack_pool_t *p = memtrack_pool_create(NULL, 0, 2); /* no name, size 0: 1 byte */
    void *a = memtrack_pool_alloc(p), *b = memtrack_pool_alloc(p);
    cr_expect(a && b && a != b);
    cr_expect_eq(memtrack_pool_check(p), 0, "untracked: nothing to check");
    memtrack_pool_destroy(p);
}

/* ---- arenas ------------------------------------------------------------------------ */

Test(pool_untracked, arena_bumps_aligned_like_malloc_until_full)
{
    size_t before = recorded();
    memtrack_arena_t *a = memtrack_arena_create("a", 100);
    char *x = memtrack_arena_alloc(a, 10);
    char *y = memtrack_arena_alloc(a, 30);
    cr_expect_eq((uintptr_t)x % 16, 0);
    cr_expect_eq(y - x, 16);
    cr_expect_eq(memtrack_arena_used(a), 46);
    cr_expect_null(memtrack_arena_alloc(a, 53), "48 + 53 > 100");
    cr_expect_not_null(memtrack_arena_alloc(a, 52), "48 + 52 == 100");
    cr_expect_null(memtrack_arena_alloc(a, 0));
    cr_expect_eq(memtrack_arena_capacity(a), 100);
    memtrack_arena_destroy(a);
    cr_expect_eq(recorded(), before, "nothing recorded");
}

Test(pool_untracked, arena_aligned_allocations)
{
    memtrack_arena_t *a = memtrack_arena_create("a", 1 << 16);
    memtrack_arena_alloc(a, 1);
    for (size_t al = 1; al <= 8192; al *= 2) {
        void *p = memtrack_arena_alloc_aligned(a, 3, al);
        cr_assert_not_null(p);
        cr_assert_eq((uintptr_t)p % al, 0, "alignment %zu", al);
    }
    cr_expect_null(memtrack_arena_alloc_aligned(a, 3, 48));
    cr_expect_null(memtrack_arena_alloc_aligned(a, 3, 0));
    memtrack_arena_destroy(a);
}

Test(pool_untracked, arena_size_zero_gives_distinct_pointers)
{
    memtrack_arena_t *a = memtrack_arena_create("a", 64);
    void *x = memtrack_arena_alloc(a, 0), *y = memtrack_arena_alloc(a, 0);
    cr_expect(x && y && x != y);
    memtrack_arena_destroy(a);
}

Test(pool_untracked, arena_mark_rewind_reset)
{
    memtrack_arena_t *a = memtrack_arena_create("a", 1024);
    char *keep = memtrack_arena_alloc(a, 100);
    size_t mark = memtrack_arena_mark(a);
    cr_expect_eq(mark, 100);
    char *first = memtrack_arena_alloc(a, 200);
    memtrack_arena_alloc(a, 200);
    memtrack_arena_rewind(a, mark);
    cr_expect_eq(memtrack_arena_used(a), 100);
    cr_expect_eq(memtrack_arena_alloc(a, 200), first, "the same memory again");
    memtrack_arena_rewind(a, 5000); /* beyond what is in use: ignored */
    cr_expect_eq(memtrack_arena_used(a), 312);
    memtrack_arena_reset(a);
    cr_expect_eq(memtrack_arena_used(a), 0);
    cr_expect_eq(memtrack_arena_alloc(a, 1024), keep, "the whole arena again");
    memtrack_arena_destroy(a);
}

Test(pool_untracked, arena_null_and_register_no_ops)
{
    size_t before = recorded();
    cr_expect_null(memtrack_arena_alloc(NULL, 1));
    cr_expect_null(memtrack_arena_alloc_aligned(NULL, 1, 16));
    memtrack_arena_rewind(NULL, 0);
    memtrack_arena_reset(NULL);
    memtrack_arena_destroy(NULL);
    cr_expect_eq(memtrack_arena_used(NULL), 0);
    cr_expect_eq(memtrack_arena_mark(NULL), 0);
    char buffer[64];
    memtrack_register_alloc(buffer, 64, "mine"); /* without the flag: nothing happens */
    memtrack_register_free(buffer, "mine");
    memtrack_register_free(buffer, "mine");
    cr_expect_eq(recorded(), before);
}
