/* Frees and reallocs of pointers no allocator handed out: inside a live block (after its
 * start or in its front guard), inside a freed block, a stack address, a static address,
 * an unmapped address, a page from mmap, and a library's block freed twice. Each is
 * reported and left alone (realloc returns NULL with errno EINVAL); nothing is handed to
 * the C library, nothing crashes, and the block the bad pointers pointed into is intact.
 * fault-untracked: invalid_free-untracked.c
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

char *lib_strdup(const char *s);

static char table[64];

int main(void)
{
    int bad = 0, local = 0, i;
    char *e = malloc(100);
    for (i = 0; i < 100; i++)
        e[i] = (char)i;
    free(e + 16);
    free(e - 8);  /* in its front guard */
    free(e - 16); /* where its C library block starts: glibc would take it */

    char *f = malloc(50);
    free(f);
    free(f + 10);

    free(&local);
    free(table);
    free((void *)16);

    char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(page + 4096, 4096);
    free(page + 64);  /* mapped, but no block */
    free(page + 4096); /* not mapped any more */

    char *s = lib_strdup("library");
    for (i = 0; i < 2; i++) /* one site: nothing is allocated between the two frees */
        free(s); /* the library's block goes back to the C library, once */

    errno = 0;
    bad |= realloc(e + 32, 200) != NULL || errno != EINVAL;
    errno = 0;
    bad |= realloc(&local, 8) != NULL || errno != EINVAL;

    for (i = 0; i < 100; i++) /* the block they pointed into is untouched */
        bad |= e[i] != (char)i;
    free(e);
    munmap(page, 4096);
    return bad;
}
