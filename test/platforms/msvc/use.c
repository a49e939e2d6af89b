/* use.c - every drop-in macro of memtrack.h once, as a Windows program would use them. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <memtrack.h>

int main(void)
{
    char *a = malloc(8), *b = calloc(2, 4), *c = _strdup("x");
    void *d = _aligned_malloc(64, 32);
    a = realloc(a, 16);
    memtrack_pool_t *pool = memtrack_pool_create("objects", 32, 4);
    memtrack_pool_free(pool, memtrack_pool_alloc(pool));
    memtrack_pool_destroy(pool);
    _aligned_free(d);
    free(c);
    free(b);
    free(a);
    return memtrack_check();
}
