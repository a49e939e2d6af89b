/* realloc_moves=0: realloc resizes in place when the block fits, after checking its
 * guards; the back guard moves to the new end, so an overrun of the new size is caught.
 * fault-options: realloc_moves=0
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    int bad = 0;
    char *p = malloc(100);
    memset(p, 'p', 100);
    char *q = realloc(p, 40); /* shrinking always fits */
    bad |= q != p;
    q[40] = 0;                /* the new guard */
    char *r = realloc(q, 44); /* fits in the same C library block: the overrun is found */
    bad |= r != q || r[39] != 'p' || (unsigned char)r[41] != 0xCD;
    char *s = realloc(r, 100000); /* too big to fit: moves */
    bad |= s == r || s[0] != 'p';
    free(s);
    return bad;
}
