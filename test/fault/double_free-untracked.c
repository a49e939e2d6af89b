/* double_free-untracked.c - a library built WITHOUT memtrack: frees and reallocs with the
 * C library's functions, which libmemtrack provides for the process. */
#include <stdlib.h>
#include <string.h>

void lib_free(void *p) { free(p); }
void *lib_realloc(void *p, size_t n) { return realloc(p, n); }
char *lib_strdup(const char *s) { return strdup(s); }
