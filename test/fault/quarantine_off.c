/* quarantine=0: freed blocks go back to the C library at once. A double free is no longer
 * recognised as one, but it still cannot crash the program: the C library has the block,
 * the second free is reported and left alone.
 * fault-options: quarantine=0
 */
#include <stdlib.h>

int main(void)
{
    int i;
    char *a = malloc(24);
    for (i = 0; i < 2; i++) /* one site: nothing is allocated between the two frees */
        free(a);
    return 0;
}
