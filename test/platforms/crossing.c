/* Blocks a library built without memtrack made, freed and grown by tracked code, on every
 * target: on glibc they go back through glibc's entry points, elsewhere (musl) the pointer is
 * judged without the C library's layout and handed to its free and realloc. Nothing is
 * reported: the program does nothing wrong.
 * platform-untracked: crossing-untracked.c
 */
#include <stdlib.h>
#include <string.h>

char *lib_strdup(const char *s);
void *lib_malloc(size_t n);

int main(void)
{
    char *s = lib_strdup("made by the library"); /* untracked, freed by tracked code */
    free(s);
    s = lib_malloc(10);
    strcpy(s, "kept");
    s = realloc(s, 2000);  /* tracked code grows an untracked block */
    if (strcmp(s, "kept") != 0)
        return 1;
    char *t = lib_malloc(64);
    t = realloc(t, 8);     /* and shrinks one */
    free(t);
    free(s);
    return 0;
}
