/* words.c - joins two words with a space; the caller frees the result. */
#include "words.h"

#include <stdlib.h>
#include <string.h>

char *words_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (s == NULL)
        return NULL;
    memcpy(s, a, la);
    s[la] = ' ';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}
