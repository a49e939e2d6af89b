/* realloc_moves=0: realloc resizes in place when the block fits, after checking its
 * guards; the back guard moves to the new end, so an overrun of the new size is caught.
 * A block that does not fit is grown by the C library: where it is when the memory after
 * it is free, else moved with its bytes and guards, and a free of its old address is then
 * a double free. (quarantine=2k: a block of 20000 bytes goes back to the C library at once,
 * so that the memory after a block is free.)
 * fault-options: realloc_moves=0:quarantine=2k
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
    char *wall = malloc(16);    /* in use right after r: r cannot grow where it is */
    char *s = realloc(r, 4000); /* moved by the C library */
    bad |= s == r || s[0] != 'p' || s[39] != 'p' || (unsigned char)s[44] != 0xCD;
    free(r); /* its old address: a double free, found */
    free(s);

    /* blocks larger than any free memory of the C library's: made one after the other */
    char *a = malloc(20000), *b = malloc(20000), *c = malloc(20000);
    memset(a, 'a', 20000);
    free(b);                     /* the memory right after a is free */
    char *t = realloc(a, 30000); /* grown where it is */
    bad |= t != a || t[19999] != 'a' || (unsigned char)t[20000] != 0xCD;
    t[30000] = 0; /* the guard at the new end: found by free */
    free(t);
    free(c);
    free(wall);
    return bad;
}
