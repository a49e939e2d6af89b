/* The report runs after the program's own atexit handlers: what they free is not a leak.
 * One block is really leaked, to show the report did run.
 */
#include <stdlib.h>
#include <string.h>

static char *cache;

static void release_cache(void)
{
    free(cache);
}

int main(void)
{
    cache = malloc(1000);
    atexit(release_cache);
    (void)strdup("leaked");
    return 0;
}
