/* Sizes no allocator can satisfy: calloc and reallocarray products that overflow, sizes
 * near SIZE_MAX (which would overflow once the guards are added), huge alignments. Each
 * returns NULL with errno ENOMEM, as the C library does, and is counted as failed; a
 * failed realloc leaves the old block valid and tracked. malloc(0) gives a unique
 * pointer, realloc(p, 0) frees. The one block left is a leak, so the report shows the
 * failed count.
 * fault-abort: no
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int bad;

static void expect_enomem(void *p)
{
    bad |= p != NULL || errno != ENOMEM;
    errno = 0;
}

int main(void)
{
    size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 16, SIZE_MAX - 40, SIZE_MAX / 2,
                      (size_t)PTRDIFF_MAX + 1, (size_t)PTRDIFF_MAX - 20};
    size_t i;
    void *p = NULL;
    errno = 0;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) /* 7 x 5 failures */
        expect_enomem(malloc(sizes[i]));
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        expect_enomem(calloc(1, sizes[i]));
        expect_enomem(aligned_alloc(64, sizes[i]));
        expect_enomem(memalign(4096, sizes[i]));
        bad |= posix_memalign(&p, 256, sizes[i]) != ENOMEM || p != NULL;
    }
    expect_enomem(calloc(SIZE_MAX / 2, 3));           /* the product overflows */
    expect_enomem(calloc((size_t)1 << 32, (size_t)1 << 32));
    expect_enomem(reallocarray(NULL, SIZE_MAX / 4, 8));
    expect_enomem(aligned_alloc((size_t)1 << 62, 16)); /* an alignment that cannot be */
    expect_enomem(valloc(SIZE_MAX - 100));

    char *keep = strdup("still valid");
    expect_enomem(realloc(keep, SIZE_MAX - 8));
    expect_enomem(reallocarray(keep, SIZE_MAX / 2, 4));
    bad |= strcmp(keep, "still valid") != 0;

    void *z1 = malloc(0), *z2 = malloc(0);
    bad |= z1 == NULL || z2 == NULL || z1 == z2;
    free(z1);
    bad |= realloc(z2, 0) != NULL; /* frees it, as the C library does */

    memtrack_stats_t st;
    memtrack_stats(&st);
    bad |= st.failed != 7 * 5 + 7 || st.current_blocks != 1;
    return bad; /* keep leaks: the report shows it and the failed count */
}
