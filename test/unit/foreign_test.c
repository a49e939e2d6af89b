/* foreign_test.c - pointers the tracker never made: the C library's real blocks of every
 * kind pass the chunk checks (so tracked code may free them), everything else fails them
 * without a fault and is told apart (wild, not a heap block, already released, stack,
 * static, inside a tracked block). */
#include <criterion/criterion.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "checks/foreign.h"
#include "checks/guard.h"
#include "records/site.h"

#define AT __FILE__, __LINE__, __func__

static char static_area[64];

static void setup(void)
{
    memtrack_set_option("quiet", "1");
}

TestSuite(foreign, .init = setup);

static bool libc_block(const void *p)
{
    mt_pointer_class_t why;
    return mt_foreign_is_libc_block(p, &why);
}

static mt_pointer_class_t why_not(const void *p)
{
    mt_pointer_class_t why = MT_POINTER_UNKNOWN;
    cr_assert_not(mt_foreign_is_libc_block(p, &why), "%p passed", p);
    return why;
}

Test(foreign, probe_reads_what_is_there_and_fails_on_what_is_not)
{
    char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memcpy(page + 4090, "abcdef", 6);
    mprotect(page + 4096, 4096, PROT_NONE);
    char out[8];
    cr_expect(mt_probe_read((uintptr_t)page + 4090, out, 6));
    cr_expect(memcmp(out, "abcdef", 6) == 0);
    cr_expect_not(mt_probe_read((uintptr_t)page + 4092, out, 8), "crosses into PROT_NONE");
    cr_expect_not(mt_probe_read(16, out, 1));
    munmap(page, 8192);
}

/* Two 3000-byte blocks side by side in the heap (glibc may serve one from a bin). */
static void adjacent_pair(char **first, char **second)
{
    char *spare[16];
    int n = 0;
    for (;;) {
        char *a = malloc(3000), *b = malloc(3000);
        if (b == a + 3008 || n == 16) {
            *first = a;
            *second = b;
            break;
        }
        spare[n++] = a;
        spare[n++] = b;
    }
    while (n > 0)
        free(spare[--n]);
}

static void *thread_block(void *arg)
{
    return malloc((size_t)(uintptr_t)arg); /* untracked: from this thread's arena */
}

Test(foreign, the_c_librarys_own_blocks_pass)
{
#ifdef MT_SANITIZER_ALLOCATOR
    cr_skip_test("glibc's chunk layout is not underneath in a sanitizer build");
#endif
    size_t sizes[] = {1, 24, 100, 1000, 5000, 200000, 4u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        void *p = malloc(sizes[i]); /* the process's malloc: untracked */
        cr_expect(libc_block(p), "malloc(%zu)", sizes[i]);
        free(p);
    }
    void *a = memalign(64, 100), *b = memalign(4096, 10000), *c = calloc(10, 10);
    cr_expect(libc_block(a));
    cr_expect(libc_block(b));
    cr_expect(libc_block(c));
    free(a);
    free(b);
    free(c);
    pthread_t t;
    void *theirs;
    pthread_create(&t, NULL, thread_block, (void *)(uintptr_t)48);
    pthread_join(t, &theirs);
    cr_expect(libc_block(theirs), "a block from a thread's arena");
    free(theirs);
    /* A block whose neighbour before it is free: glibc will merge them. */
    char *x, *y;
    adjacent_pair(&x, &y);
    cr_assert_eq(y, x + 3008);
    free(x);
    cr_expect(libc_block(y));
    free(y);
}

Test(foreign, released_and_made_up_pointers_fail)
{
#ifdef MT_SANITIZER_ALLOCATOR
    cr_skip_test("glibc's chunk layout is not underneath in a sanitizer build");
#endif
    char *p = malloc(100);
    cr_expect_eq(why_not(p + 16), MT_POINTER_NOT_HEAP, "inside a block");
    cr_expect_eq(why_not(p + 3), MT_POINTER_NOT_HEAP, "misaligned");
    free(p);
    cr_expect_eq(why_not(p), MT_POINTER_RELEASED, "in the thread cache");
    char *big1, *big2;
    adjacent_pair(&big1, &big2);
    cr_assert_eq(big2, big1 + 3008);
    free(big1);
    cr_expect_eq(why_not(big1), MT_POINTER_RELEASED, "in a bin: its neighbour says free");
    free(big2);
    char local[64];
    cr_expect_eq(why_not(local), MT_POINTER_NOT_HEAP);
    cr_expect_eq(why_not(static_area), MT_POINTER_NOT_HEAP);
    cr_expect_eq(why_not((void *)16), MT_POINTER_WILD);
    char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_expect_eq(why_not(page + 32), MT_POINTER_WILD);
    munmap(page, 4096);
}

Test(foreign, the_c_library_block_under_a_tracked_block_is_not_passed)
{
    char *t = memtrack_malloc_at(32, AT);
    char *a = memtrack_aligned_alloc_at(256, 32, AT);
    cr_expect_not(libc_block(t - mt_block_front(4)));
    cr_expect_not(libc_block(a - mt_block_front(8)));
    memtrack_free_at(t, AT);
    cr_expect_not(libc_block(t - mt_block_front(4)), "nor while in quarantine");
    memtrack_free_at(a, AT);
}

Test(foreign, a_bad_pointer_is_described)
{
    mt_error_t e;
    char local[32];
    char *t = memtrack_malloc_at(50, AT);
    memset(&e, 0, sizeof e);
    mt_foreign_describe(t + 20, MT_POINTER_NOT_HEAP, true, &e);
    cr_expect_eq(e.what, MT_POINTER_INSIDE_LIVE);
    cr_expect_eq(e.addr, (uintptr_t)t);
    cr_expect_eq(e.size, 50);
    cr_expect_eq(e.offset, 20);
    mt_foreign_describe(t - 4, MT_POINTER_NOT_HEAP, true, &e);
    cr_expect_eq(e.what, MT_POINTER_INSIDE_LIVE, "the front guard belongs to the block");
    memtrack_free_at(t, AT);
    mt_foreign_describe(t + 1, MT_POINTER_NOT_HEAP, true, &e);
    cr_expect_eq(e.what, MT_POINTER_INSIDE_FREED);
    cr_expect_neq(e.free_site, MT_SITE_NONE);
    mt_foreign_describe(local + 3, MT_POINTER_NOT_HEAP, true, &e);
    cr_expect_eq(e.what, MT_POINTER_STACK);
    mt_foreign_describe(static_area + 3, MT_POINTER_NOT_HEAP, true, &e);
    cr_expect_eq(e.what, MT_POINTER_STATIC);
    mt_foreign_describe(static_area + 3, MT_POINTER_NOT_HEAP, false, &e);
    cr_expect_eq(e.what, MT_POINTER_NOT_HEAP, "no details past the message cap");
}
