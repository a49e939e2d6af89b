/* Over musl a pointer is the C library's exactly when it carries libmemtrack's header, so a
 * bad free by code built without the flag is reported and left alone, and the program goes
 * on; musl itself would abort (glibc judges such frees itself: this program is musl's).
 * platform-untracked: untracked_bad_free-untracked.c
 * platform-targets: musl
 */
#include <stdlib.h>

void lib_free(void *p);

int main(void)
{
    char local[32];
    char *block = malloc(32);
    lib_free(local);     /* a stack address */
    lib_free(block + 8); /* inside a tracked block */
    lib_free(block);     /* the block itself: fine */
    return 0;
}
