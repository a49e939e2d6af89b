/* string.h - stand-in for MSVC's, for header.sh only (see stdlib.h). */
#include <stddef.h>
char *__cdecl _strdup(const char *s);
size_t __cdecl strlen(const char *s);
