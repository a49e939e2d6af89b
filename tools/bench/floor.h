/* floor.h - force-included into churn.c to build the floor (floor.c): malloc and free
 * become the floor's, with the caller's file and line, as memtrack's macros do
 * (FLOOR_NO_MACROS: the declarations only, for floor_preload.c). */
#ifndef FLOOR_H
#define FLOOR_H
#include <stddef.h>
#include <stdlib.h>

void *floor_malloc(size_t size, const char *file, int line);
void *floor_calloc(size_t count, size_t size, const char *file, int line);
void floor_free(void *ptr);
/* The size of the live block ptr, or SIZE_MAX when the floor did not make it. */
size_t floor_size(const void *ptr);

#ifndef FLOOR_NO_MACROS
#define malloc(n) floor_malloc((n), __FILE__, __LINE__)
#define calloc(n, size) floor_calloc((n), (size), __FILE__, __LINE__)
#define free(p) floor_free(p)
#endif
#endif
