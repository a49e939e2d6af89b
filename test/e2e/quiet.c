/* quiet=1 prints nothing, even for a leak and an overrun; exitcode still tells.
 * e2e-options: quiet=1:exitcode=7
 * e2e-exit: 7
 */
#include <stdlib.h>

int main(void)
{
    char *p = malloc(4);
    p[4] = 1;
    free(p);
    (void)malloc(9);
    return 0;
}
