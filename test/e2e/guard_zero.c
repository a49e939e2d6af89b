/* guard=0 turns guard bytes off: the same one-byte overrun is no longer reported (the block
 * is still tracked and its leak still reported), and the user pointers keep their alignment.
 * e2e-options: guard=0
 */
#include <stdint.h>
#include <stdlib.h>

int main(void)
{
    char *p = malloc(20);
    p[20] = 0; /* lands in the C library's slack (24 usable): harmless, unseen without guards */
    free(p);
    void *a = aligned_alloc(64, 64);
    return ((uintptr_t)a % 64 == 0 && memtrack_check() == 0) ? 0 : 1;
}
