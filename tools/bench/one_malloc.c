/* one_malloc.c - the smallest tracked program: one block made and freed (bench-startup). */
#include <stdlib.h>

int main(void)
{
    void *p = malloc(10);
    free(p);
    return p == NULL;
}
