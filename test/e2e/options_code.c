/* Options set from code: guard before the first block, then a refused change of guard
 * once blocks exist, a bad value, and report_sites=1 capping the list.
 */
#include <stdlib.h>

int main(void)
{
    int bad = 0;
    bad += memtrack_set_option("guard", "32") != 0;
    char *p = malloc(1);
    p[1 + 31] = 1;  /* last byte of the 32-byte back guard */
    free(p);
    bad += memtrack_set_option("guard", "8") == 0;      /* refused: blocks exist */
    bad += memtrack_set_option("report_seqs", "many") == 0; /* refused: bad value */
    bad += memtrack_set_options("report_sites=1,report_seqs=1") != 0;
    (void)malloc(100);
    (void)malloc(10);
    (void)malloc(10);
    return bad;
}
