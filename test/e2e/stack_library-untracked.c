/* A library built without memtrack: its blocks come from the process's malloc. */
#include <stdlib.h>
#include <string.h>

char *lib_name_copy(const char *name)
{
    char *copy = malloc(strlen(name) + 1);
    strcpy(copy, name);
    return copy;
}

void lib_name_free(char *name)
{
    free(name);
}
