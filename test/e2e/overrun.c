/* One-byte overruns and underruns, found at free, at realloc, by memtrack_check() and at
 * exit; each message names the block, its site and where the damage was found.
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *a = malloc(10);
    memset(a, 'a', 11); /* one byte past the end */
    free(a);

    char *b = malloc(20);
    b[-1] = 'x'; /* one byte before the start */
    b = realloc(b, 40);

    char *c = malloc(8);
    c[8] = 0;   /* a zero: the pattern has no zero byte */
    c[12] = 0;  /* two changed bytes, reaching 13 past the end */
    int found = memtrack_check();
    found += memtrack_check(); /* counted again, reported once */

    char *d = calloc(4, 4);
    d[-16] = 1; /* the farthest guard byte before the start */
    free(b);
    return found == 2 ? 0 : 1;
}
