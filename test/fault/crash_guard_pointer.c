/* A crash that follows a pointer read past a block's end: the bytes after it are
 * memtrack's guard (0xfd), so the pointer read there is 0xfdfdfdfdfdfdfdfd and following
 * it crashes. The crash report names the guard.
 * fault-options: page_guard_rate=0
 * fault-exit: 139
 * fault-abort: no
 */
#include <stdlib.h>

int main(void)
{
    int **slots = malloc(2 * sizeof *slots);
    static int a, b;
    slots[0] = &a;
    slots[1] = &b;
    int sum = 0;
    for (int i = 0; i <= 2; i++) /* one slot too many */
        sum += *slots[i];
    return sum;
}
