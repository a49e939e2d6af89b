/* page_guard_frees-untracked.c - a library built WITHOUT memtrack that frees and
 * reallocs with the C library's functions, which libmemtrack provides for the process. */
#include <stdlib.h>

void lib_free(void *p) { free(p); }
void *lib_realloc(void *p, size_t n) { return realloc(p, n); }
