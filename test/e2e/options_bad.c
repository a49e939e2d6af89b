/* Bad options get one clear warning each and the defaults stay: the overrun is still
 * caught with 16-byte guards, the report still lists the leak.
 * e2e-options: gaurd=8:guard=lots:verbose=2:quiet:exitcode=12x, report_seqs=2
 */
#include <stdlib.h>

int main(void)
{
    char *p = malloc(3);
    p[3 + 15] = 0; /* the last byte of a 16-byte back guard */
    free(p);
    (void)malloc(1);
    (void)malloc(1);
    (void)malloc(1);
    return 0;
}
