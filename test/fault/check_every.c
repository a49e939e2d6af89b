/* check_every=N checks every block every N tracked allocations and frees: an overrun is
 * found soon after it happens, not only when its block is freed.
 * fault-options: check_every=4
 */
#include <stdlib.h>

int main(void)
{
    char *keep = malloc(10); /* operation 1 */
    keep[10] = 1;
    char *a = malloc(1);  /* 2 */
    free(a);              /* 3 */
    char *b = malloc(2);  /* 4: the check runs here */
    free(b);
    free(keep);
    return 0;
}
