/* names.c - a small intern table in a shared library: every name is freed by names_clear. */
#include "names.h"

#include <stdlib.h>
#include <string.h>

static char *table[16];
static int used;

const char *names_intern(const char *name)
{
    for (int i = 0; i < used; i++)
        if (strcmp(table[i], name) == 0)
            return table[i];
    if (used == 16)
        return NULL;
    table[used] = malloc(strlen(name) + 1);
    strcpy(table[used], name);
    return table[used++];
}

void names_clear(void)
{
    for (int i = 0; i < used; i++)
        free(table[i]);
    used = 0;
}
