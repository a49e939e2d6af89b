/* The byte peak and the block peak come at different moments: one big buffer, freed, then
 * many small blocks. The summary pairs the byte peak with the blocks live at that moment
 * (2), and gives the most blocks live at once (101) apart, never as "60016 bytes in 101
 * blocks", which was never true.
 */
#include <stdlib.h>

int main(void)
{
    char *name = malloc(16);
    char *big = malloc(60000);
    free(big);
    static void *small[100];
    for (int i = 0; i < 100; i++)
        small[i] = malloc(8);
    for (int i = 0; i < 99; i++)
        free(small[i]);
    (void)name; /* leaks, with small[99] */
    return 0;
}
