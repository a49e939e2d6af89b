/* Blocks cross between tracked code and a library built without memtrack, both ways:
 * the library's strdup freed by the program, the program's blocks freed and grown by the
 * library, getline growing a tracked buffer. Only the one real leak is reported, at the
 * program's line that called the library's grow function (which only returns what its
 * realloc moved: an allocation wrapper).
 * e2e-untracked: crossing-untracked.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *lib_strdup(const char *s);
void *lib_malloc(size_t n);
void lib_free(void *p);
void *lib_grow(void *p, size_t n);
void lib_keep(void *p);
void lib_release_kept(void);

int main(void)
{
    char *s = lib_strdup("made by the library"); /* untracked, freed by tracked code */
    free(s);
    s = lib_malloc(10);
    s = realloc(s, 20); /* tracked code grows an untracked block */
    free(s);

    char *t = malloc(10); /* tracked, freed by the library */
    lib_free(t);
    t = malloc(10);       /* tracked, grown by the library, freed here */
    t = lib_grow(t, 100);
    free(t);
    lib_keep(malloc(33)); /* tracked, kept and released by the library */
    lib_release_kept();

    FILE *f = fopen("crossing.c", "r"); /* getline grows a tracked buffer */
    size_t cap = 4;
    char *line = malloc(cap);
    while (f != NULL && getline(&line, &cap, f) > 0) {
    }
    if (f != NULL)
        fclose(f);
    free(line);

    char *leak = malloc(5); /* the one leak: moved last by the library's realloc */
    leak = lib_grow(leak, 50);
    return leak != NULL ? 0 : 1;
}
