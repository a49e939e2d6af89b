/* untracked_bad_free-untracked.c - a library built WITHOUT memtrack that frees what it
 * should not. */
#include <stdlib.h>

void lib_free(void *p);

void lib_free(void *p)
{
    free(p);
}
