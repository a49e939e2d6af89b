/* unwritten=1: at free, bytes still holding the new-block fill were never written; the
 * report shows, per allocation site, the share of freed bytes never written (calloc
 * blocks are not counted: their zeros are meant). Printed even for a clean run.
 * fault-options: unwritten=1
 * fault-abort: no
 */
#include <stdlib.h>
#include <string.h>

static char *make_name(const char *s)
{
    char *name = malloc(64); /* far more than needed */
    strcpy(name, s);
    return name;
}

int main(void)
{
    int i;
    for (i = 0; i < 4; i++)
        free(make_name("orc")); /* 4 of 64 bytes written */
    char *full = malloc(100);
    memset(full, 0, 100);
    free(full);
    free(calloc(10, 10));
    char *grown = malloc(8);
    memset(grown, 1, 8);
    grown = realloc(grown, 32); /* 8 copied, 24 never written */
    free(grown);
    return 0;
}
