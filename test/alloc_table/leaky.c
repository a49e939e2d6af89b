/* A program that forgets a list made through the default table. */
#include <stdio.h>

#include "strlist.h"

int main(void)
{
    strlist_t *kept = strlist_new(&default_mem);
    strlist_push(kept, "forgotten");
    counter_t *c = counter_new(&default_mem);
    printf("%zu %zu\n", kept->count, c->hits);
    return 0;
}
