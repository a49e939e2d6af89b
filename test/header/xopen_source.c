/* xopen_source.c - a source that sets its own feature-test macros, as POSIX code does.
 * Force-included before them, memtrack.h must leave it compiling silently with everything
 * it asks for: sigaction, popen, fseeko, strdup. FEATURE selects the macro under test. */
#if FEATURE == 1
#define _XOPEN_SOURCE 600
#elif FEATURE == 2
#define _POSIX_C_SOURCE 200809L
#elif FEATURE == 3
#define _GNU_SOURCE 1
#elif FEATURE == 4
#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static void on_signal(int sig)
{
    (void)sig;
}

int main(void)
{
    struct sigaction sa;
    FILE *p;
    char *s;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    if (sigaction(SIGUSR1, &sa, NULL) != 0)
        return 1;
    p = popen("echo hello", "r");
    if (p == NULL || fseeko(p, (off_t)0, SEEK_CUR) == 0) /* a pipe cannot seek */
        return 2;
    pclose(p);
    s = strdup("copied");
    free(s);
    return 0;
}
