/* page_guard_stop=1: the fault is reported, then the program ends as the signal would
 * (SIGSEGV: a core dump, or the debugger stops at the write); no exit report.
 * fault-options: page_guard_site=page_guard_stop.c:11:page_guard_stop=1
 * fault-exit: 139
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char *p = malloc(10);
    p[10] = 'x';
    puts("not reached");
    free(p);
    return 0;
}
