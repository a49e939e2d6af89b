/* exitcode takes an exit status, 0 to 255, or -1: 256 (which would exit 0 with a leak) and
 * -5 (which would act as -1) are refused with a warning, and the last good value holds.
 * e2e-options: exitcode=7:exitcode=256:exitcode=-5
 * e2e-exit: 7
 */
#include <stdlib.h>

int main(void)
{
    (void)malloc(5);
    return 0;
}
