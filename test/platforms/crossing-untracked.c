/* crossing-untracked.c - a library built WITHOUT memtrack: its blocks come from the C
 * library's own malloc. */
#include <stdlib.h>
#include <string.h>

char *lib_strdup(const char *s);
void *lib_malloc(size_t n);

char *lib_strdup(const char *s) { return strdup(s); }
void *lib_malloc(size_t n) { return malloc(n); }
