/* Page-guarded blocks are released as any block is: a double free from tracked code and
 * from a library built without memtrack, a realloc of a freed block, and a free of a
 * pointer inside a freed block are told as for blocks with guard bytes; none of them
 * touches the freed block's closed pages or reaches the C library.
 * fault-options: page_guard=all
 * fault-untracked: page_guard_frees-untracked.c
 */
#include <stdlib.h>

void lib_free(void *p);
void *lib_realloc(void *p, size_t n);

int main(void)
{
    char *a = malloc(10), *b = malloc(20), *c = malloc(30), *d = malloc(40);
    free(a);
    free(a);
    free(b);
    lib_free(b);
    free(c);
    if (lib_realloc(c, 60) != NULL)
        return 1;
    free(d);
    free(d + 8);
    return 0;
}
