/* Double frees, each named with where the block was allocated, where it was freed first
 * and where again: free twice, free of a pointer realloc already replaced, realloc of a
 * freed block (NULL, errno EINVAL, nothing released), a library freeing a tracked block
 * twice, a library reallocating a block tracked code freed. The program goes on and the
 * blocks it still holds keep their contents.
 * fault-untracked: double_free-untracked.c
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void lib_free(void *p);
void *lib_realloc(void *p, size_t n);

int main(void)
{
    int bad = 0;
    char *a = malloc(10);
    free(a);
    free(a); /* the second free */

    char *b = malloc(20);
    strcpy(b, "kept by realloc");
    char *c = realloc(b, 40);
    free(b); /* realloc already released b */

    errno = 0;
    char *r = realloc(a, 5); /* a is freed: realloc must not use it */
    bad |= r != NULL || errno != EINVAL;

    char *d = malloc(30);
    lib_free(d);
    lib_free(d); /* a library frees a tracked block twice */

    char *e = malloc(8);
    free(e);
    bad |= lib_realloc(e, 16) != NULL; /* a library reallocs what tracked code freed */

    char *g = malloc(8);
    char *h = reallocarray(g, 4, 8);
    free(g); /* reallocarray moved it */

    bad |= strcmp(c, "kept by realloc") != 0; /* what the program holds is intact */
    free(c);
    free(h);
    return bad;
}
