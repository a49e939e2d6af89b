/* abort() after heap damage (an assert failing, glibc finding its heap corrupted): the
 * SIGABRT handler prints the damage and the live blocks, then the default action ends
 * the process (status 134).
 * fault-exit: 134
 * fault-abort: no
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *a = malloc(24);
    a[-1] = 'x'; /* an underrun */
    char *b = strdup("live at the crash");
    (void)b;
    abort();
}
