/* Suppressions: leaks matching a rule of the file are left out of the list and counted
 * apart, rule by rule; the one leak no rule matches is reported (and sets the exit status);
 * a line that is not a rule gets a warning naming the file and line.
 * e2e-options: suppressions=suppress.supp:exitcode=9
 * e2e-exit: 9
 */
#include <stdlib.h>
#include <string.h>

static char *cache[4];

static void font_cache_init(void)
{
    cache[0] = malloc(256);
    cache[1] = malloc(256);
}

static void font_cache_add(const char *name)
{
    cache[2] = strdup(name);
}

int main(void)
{
    font_cache_init();
    font_cache_add("mono");
    char *forgotten = malloc(33); /* the real leak */
    (void)forgotten;
    static char *known;
    known = calloc(1, 10);        /* line 30: suppressed by site */
    return 0;
}
