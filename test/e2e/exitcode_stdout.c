/* exitcode=N changes the status when leaks are found, and the program's buffered stdout
 * (a pipe here: fully buffered) still reaches its reader, before the report.
 * e2e-options: exitcode=23
 * e2e-exit: 23
 * e2e-stdout
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    printf("buffered line one\n");
    printf("buffered line two, no newline at the end");
    (void)malloc(12);
    return 0;
}
