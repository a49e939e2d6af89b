/* Writes to freed blocks: found when the block leaves the quarantine (a later free pushes
 * it out), by memtrack_check() and at exit, with the offsets and the count of changed
 * bytes, where the block was allocated and where it was freed. Each damaged block is
 * reported once.
 * fault-options: quarantine=4096
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    int bad = 0, i;
    char *a = malloc(100); /* with its guards it holds 132 bytes of the 4096 */
    memset(a, 'a', 100);
    free(a);
    a[99] = 0; /* the last byte */
    for (i = 0; i < 4; i++)
        free(malloc(1000)); /* 1032 each: the fourth pushes a out */

    char *b = malloc(64);
    free(b);
    memset(b + 8, 0, 4);
    b[40] = 1; /* five bytes changed, from offset 8 to 40 */
    bad |= memtrack_check() != 1;
    bad |= memtrack_check() != 1; /* still damaged, not reported again */

    char *c = aligned_alloc(64, 64);
    free(c);
    c[63] = 'z'; /* found at exit */
    return bad;
}
