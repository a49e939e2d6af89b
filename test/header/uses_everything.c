/* uses_everything.c - real-world shapes the header must survive under strict flags:
 * it is compiled with memtrack.h included first, last and force-included, with the flag
 * on and off, as C89, C99, C11 and C++. */
#ifdef INCLUDE_FIRST
#include "memtrack.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef INCLUDE_LAST
#include "memtrack.h"
#endif

struct hooks {
    void *(*malloc)(size_t size); /* members named like the functions */
    void (*free)(void *ptr);
};

static void release_all(void **items, size_t n, void (*release)(void *))
{
    size_t i;
    for (i = 0; i < n; i++)
        release(items[i]);
}

int main(void)
{
    struct hooks h;
    void *items[3];
    char *copy;
    int malloc_count = 0; /* a variable whose name starts like one */
    memtrack_stats_t st;
    unsigned long mark;

    mark = memtrack_checkpoint();
    h.malloc = malloc;
    h.free = free;
    items[0] = malloc(10);
    items[1] = calloc(2, 8);
    items[2] = (h.malloc)(4);
    items[0] = realloc(items[0], 20);
#if defined(MEMORY_CONTROL_ON) || !defined(__STRICT_ANSI__)
    copy = strdup("text"); /* strict ISO C declares no strdup; with the flag it is ours */
#else
    copy = (char *)malloc(5);
#endif
    release_all(items, 3, free);
    (h.free)(copy);
    malloc_count++;
    malloc_count += (int)memtrack_report_since(mark); /* all released: 0 */
    memtrack_stats(&st);
    printf("%d %lu\n", malloc_count + memtrack_check(), (unsigned long)st.current_blocks);
    return 0;
}
