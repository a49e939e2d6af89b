/* break_on=N stops at the Nth allocation: a line says which and where, then SIGTRAP
 * (a debugger stops there; without one the process ends with status 133).
 * fault-options: break_on=3
 * fault-exit: 133
 * fault-abort: no
 */
#include <stdlib.h>

int main(void)
{
    int i;
    for (i = 0; i < 5; i++)
        free(malloc((size_t)(10 * (i + 1))));
    return 0;
}
