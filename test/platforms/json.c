/* The machine-readable report is the same on every target, big-endian included: numbers,
 * sizes, guard bytes and site ids as on Linux x86-64. The JSON report goes to stderr after
 * the text one (the runner appends it).
 * platform-options: json=OUT/json.json
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *a = malloc(24);
    a[24] = 0;                         /* one byte past the end: found at exit */
    (void)calloc(3, 1000);             /* a leak */
    char *b = malloc(1u << 20);        /* a big one, freed */
    b[-1] = 0;                         /* before the start: found by free */
    free(b);
    return 0;
}
