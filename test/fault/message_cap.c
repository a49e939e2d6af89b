/* A loop with a bug must not flood the terminal: after max_messages messages for one kind
 * of error found at one site, one line says the rest are counted, and the exit report
 * says how many were not printed, per kind and site.
 * fault-options: max_messages=2
 */
#include <stdlib.h>

int main(void)
{
    int i;
    for (i = 0; i < 1000; i++) {
        char *p = malloc(4);
        p[4] = 0; /* one byte past the end, every time */
        free(p);
        free(p); /* and a double free, every time */
    }
    return 0;
}
