/* verbose=1 gives a one-line summary for a clean run (and a line at start).
 * e2e-options: verbose=1
 */
#include <stdlib.h>

int main(void)
{
    void *p = malloc(100), *q = malloc(28);
    free(p);
    free(q);
    return 0;
}
