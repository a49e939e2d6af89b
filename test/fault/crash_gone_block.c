/* A crash at a real address inside a freed block whose memory went back to the C library
 * (4 MiB: too big for the quarantine, so given back at once, and glibc unmaps it): the
 * crash report names the block, its allocation and its free, as a page guard names a
 * use after free, and counts the error.
 * fault-options: page_guard_rate=0
 * fault-exit: 139
 * fault-abort: no
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *frame = malloc(4 << 20);
    memset(frame, 0, 4 << 20);
    free(frame);
    frame[4096 + 10] = 1; /* a write after free, into memory unmapped since */
    return 0;
}
