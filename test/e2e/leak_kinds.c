/* One leak of each allocation kind: the report names each file:line, kind and size.
 * e2e-options: report_seqs=3
 */
#include <stdlib.h>
#include <string.h>

static void *keep[16];

int main(void)
{
    void *p = NULL;
    keep[0] = malloc(10);
    keep[1] = calloc(3, 7);
    keep[2] = realloc(NULL, 30);
    keep[3] = realloc(malloc(1), 40);
    keep[4] = reallocarray(NULL, 5, 10);
    keep[5] = strdup("twenty-three characters");
    keep[6] = strndup("seventy", 4);
    keep[7] = aligned_alloc(64, 128);
    if (posix_memalign(&p, 32, 90) == 0)
        keep[8] = p;
    keep[9] = memalign(256, 100);
    keep[10] = valloc(110);
    return 0;
}
