/* quarantine=0: freed blocks go back to the C library at once. The shard still remembers
 * the last blocks it gave back (addresses and sites, no memory), so the second free is named
 * a double free with both sites, and left alone: it cannot crash the program.
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
