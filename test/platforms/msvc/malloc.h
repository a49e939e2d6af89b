/* malloc.h - stand-in for MSVC's, for header.sh only (see stdlib.h). */
#include <stddef.h>
void *__cdecl _aligned_malloc(size_t size, size_t alignment);
void __cdecl _aligned_free(void *ptr);
