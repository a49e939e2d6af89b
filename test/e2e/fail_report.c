/* Option fail_nth=N makes the program's Nth allocation fail, as the C library's would when
 * memory runs out: NULL with errno ENOMEM. memtrack says so when it happens, with the stack
 * of the call that got NULL, and the report lists it, a clean run's too. A realloc that
 * fails keeps the block it was given. The program's own allocations are counted (1, 2, 3
 * below), not the C library's (stderr's buffer).
 * e2e-options: fail_nth=3
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(char **buf, size_t n) /* (no allocation wrapper: it returns no pointer) */
{
    char *bigger = realloc(*buf, n);
    if (bigger == NULL)
        fprintf(stderr, "grow: NULL, errno %s\n", errno == ENOMEM ? "ENOMEM" : "other");
    return bigger != NULL ? (*buf = bigger, 1) : 0;
}

int main(void)
{
    char *name = strdup("level one");
    char *buf = malloc(16);
    (void)grow(&buf, 64);
    free(buf); /* the error path keeps buf: no leak */
    free(name);
    return 0;
}
