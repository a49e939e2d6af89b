/* stdlib.h - stand-in for MSVC's, for header.sh only: what memtrack.h's macros replace,
 * declared as the UCRT declares them, so clang in MSVC mode (no __GNUC__) reads
 * memtrack.h without the Windows SDK. */
#include <stddef.h>
void *__cdecl malloc(size_t size);
void *__cdecl calloc(size_t count, size_t size);
void *__cdecl realloc(void *ptr, size_t size);
void __cdecl free(void *ptr);
