/* A crash at an address where a freed block's memory once was, went back to the C library,
 * and is mapped again by the program for something else, inaccessible (a thread stack's
 * guard page, typically: mmap reuses the hole a big free left). The fault is at a mapped
 * page, not at memory gone (SEGV_ACCERR, not SEGV_MAPERR): the crash report names no use
 * after free of the block that was there before (it did, crash_gone_block's words).
 * fault-options: page_guard_rate=0
 * fault-exit: 139
 * fault-abort: no
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(void)
{
    char *frame = malloc(4 << 20);
    memset(frame, 0, 4 << 20);
    free(frame); /* (4 MiB: too big for the quarantine, unmapped by glibc at once) */
    char *page = (char *)(((uintptr_t)frame + 4096 + 10) & ~(uintptr_t)4095);
    if (mmap(page, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
        page)
        return 2;
    page[10] = 1; /* a write to the program's own guard page */
    return 0;
}
