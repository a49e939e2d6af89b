/* An overrun that runs past its guard into the blocks laid after it is told once, on the block
 * it started from, with how far it went and how many blocks' guards it crossed: not as an
 * underrun of each innocent neighbour. Found by free (a 100-byte overrun over one neighbour)
 * and by the exit-time check (a 4 KiB one over eight, whatever order the check visits them).
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *a = malloc(24);
    char *b = malloc(40);
    char *tail = malloc(256); /* keeps the overruns off the C library's own bookkeeping */
    /* All made before the first message: printing it loads the debug information (the
     * stacks' lines), whose memory would come between them. */
    char *big = malloc(500);
    char *neighbours[8];
    for (int i = 0; i < 8; i++)
        neighbours[i] = malloc(480);
    char *tail2 = malloc(8192);

    memset(a, 'x', 24 + 100);
    free(a);
    free(b); /* its guards are damaged, but that was a's overrun: said already */
    memset(big, 'y', 500 + 4096);
    (void)neighbours, (void)tail, (void)tail2;
    return 0; /* everything left live: the exit-time check finds it */
}
