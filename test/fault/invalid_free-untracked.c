/* invalid_free-untracked.c - a library built WITHOUT memtrack. */
#include <stdlib.h>
#include <string.h>

char *lib_strdup(const char *s) { return strdup(s); }
