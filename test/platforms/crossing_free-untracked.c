/* crossing_free-untracked.c - a library built WITHOUT memtrack: it calls the process's
 * allocator by name, takes the release function as a value, and hands blocks both ways. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void lib_destroy(void *p, void (*release)(void *));
void lib_free(void *p);
void *lib_realloc(void *p, size_t n);
char *lib_strdup(const char *s);
size_t lib_usable_size(void *p);
void *lib_aligned(size_t alignment, size_t n);

void lib_destroy(void *p, void (*release)(void *))
{
    release(p);
}
void lib_free(void *p)
{
    free(p);
}
void *lib_realloc(void *p, size_t n)
{
    return realloc(p, n);
}
char *lib_strdup(const char *s)
{
    return strdup(s);
}
size_t lib_usable_size(void *p)
{
    return malloc_usable_size(p);
}
void *lib_aligned(size_t alignment, size_t n)
{
    return aligned_alloc(alignment, n);
}
