/* report_prog.c - the program whose HTML report html_report.js checks in chromium: leaks
 * at six sites of different sizes (seven call stacks), two heap errors, and a peak of live
 * memory mid-run (a level loaded and unloaded). Built with memtrack cc by run.sh. */
#include <stdlib.h>
#include <string.h>

#define LEVEL_BLOCKS 300

static void *level[LEVEL_BLOCKS]; /* (the helpers return nothing: no allocation wrappers; */
#define LOSE(p) __asm__ __volatile__("" : : "r"(p) : "memory") /* and keep nothing: lost) */
static void texture(size_t n) { LOSE(malloc(n)); }
static void sound(size_t n) { LOSE(calloc(1, n)); }
static void label(const char *s) { LOSE(strdup(s)); }

int main(void)
{
    for (int i = 0; i < LEVEL_BLOCKS; i++) /* the peak: 300 x 40 bytes more */
        level[i] = malloc(40);
    for (int i = 0; i < LEVEL_BLOCKS; i++)
        free(level[i]);

    for (int i = 0; i < 4; i++)
        (void)texture(1000);               /* 4000 bytes, the largest site */
    (void)sound(2500);                     /* 2500 bytes */
    (void)texture(700);                    /* the same site: one more block */
    for (int i = 0; i < 3; i++)
        (void)label("a label of 31 characters total");
    char *grow = malloc(10);
    grow = realloc(grow, 1200);            /* 1200 bytes at the realloc */
    (void)malloc(5);                       /* the smallest */
    char *bad = malloc(8);
    bad[8] = '!';                          /* overrun, found by free */
    free(bad);
    char *under = malloc(16);
    under[-2] = '?';                       /* underrun, found at exit */
    (void)grow;
    return 0;
}
