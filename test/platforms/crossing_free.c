/* Tracked blocks that reach the process's free, realloc and malloc_usable_size through
 * code that never saw the macros: free taken as a value, a hook table of the C library's
 * functions, a library built without the flag. And the other way: blocks that library and
 * the C library made for it (strdup, aligned_alloc) freed by tracked code; with track_all,
 * the C library's strdup for the library is tracked too. Where the C library's own free
 * got a tracked block (musl before libmemtrack provided the process's malloc), the program
 * aborted. One block leaks on purpose (kept); nothing else is reported.
 * It turns track_all on itself, after starting with it off:
 * platform-options: track_all=0
 * platform-untracked: crossing_free-untracked.c
 * platform-skip: windows cortexm: the process's free stays the C library's (tools/doc/platforms.md)
 */
#include <stdlib.h>
#include <string.h>

void lib_destroy(void *p, void (*release)(void *));
void lib_free(void *p);
void *lib_realloc(void *p, size_t n);
char *lib_strdup(const char *s);
size_t lib_usable_size(void *p);
void *lib_aligned(size_t alignment, size_t n);

struct hooks {
    void *(*alloc)(size_t size);
    void (*release)(void *ptr);
};

int main(void)
{
    struct hooks h = {malloc, free}; /* the process's functions, as values */
    memtrack_stats_t st;
    lib_destroy(malloc(16), free); /* a tracked block freed through free taken as a value */
    (h.release)(malloc(32));       /* and through the hook table */
    free((h.alloc)(24));           /* the hook table's block, freed by tracked code */
    char *s = malloc(8);
    strcpy(s, "grow");
    if (lib_usable_size(s) != 8) /* the library asks the size of a tracked block */
        return 1;
    s = lib_realloc(s, 4000); /* grows it */
    if (strcmp(s, "grow") != 0)
        return 2;
    lib_free(s);                   /* and frees it */
    free(lib_strdup("from libc")); /* the C library's strdup for the library, freed here */
    free(lib_aligned(64, 100));    /* and its aligned block */
    memtrack_set_option("track_all", "1");
    memtrack_stats(&st);
    size_t before = st.current_blocks;
    char *t = lib_strdup("tracked"); /* track_all: the library's blocks are tracked too */
    memtrack_stats(&st);
    free(t);
    memtrack_set_option("track_all", "0");
    if (st.current_blocks != before + 1)
        return 3;
    char *kept = strdup("kept"); /* the one leak */
    return kept == NULL;
}
