/* Bare metal: firmware never exits, so nothing runs at exit; it asks for the report
 * itself. A leak and an overrun are reported by file and line from memtrack_report() and
 * memtrack_check(), and the run ends with _exit, which skips the exit-time report: what is
 * printed came from the calls alone. Options set from code (no environment here).
 * platform-targets: cortexm
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *frame(size_t n)
{
    return malloc(n); /* one frame's buffer */
}

int main(void)
{
    memtrack_set_options("report_seqs=0");
    char *kept = frame(48); /* never freed */
    char *sent = frame(8);
    memcpy(sent, "123456789", 9); /* one byte past its end */
    if (memtrack_check() != 1)
        _exit(2);
    free(sent);
    memtrack_report();
    kept[0] = 0;
    _exit(0);
}
