/* crossing-untracked.c - a library built WITHOUT memtrack: it allocates, frees and
 * reallocates with the C library's functions, on its own blocks and on the program's. */
#include <stdlib.h>
#include <string.h>

char *lib_strdup(const char *s) { return strdup(s); }
void *lib_malloc(size_t n) { return malloc(n); }
void lib_free(void *p) { free(p); }
void *lib_grow(void *p, size_t n) { return realloc(p, n); }

static void *kept;
void lib_keep(void *p) { kept = p; }
void lib_release_kept(void) { free(kept); kept = NULL; }
