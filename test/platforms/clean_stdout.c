/* A clean program that prints on stdout: the C library's stdout buffer (4 KiB with glibc)
 * is the C library's, wherever the C library was loaded from (i686's comes from the cross
 * tree /usr/i686-linux-gnu/lib under qemu-i386), so the report is empty and exitcode=23,
 * as `memtrack run` sets it, is not taken. Runs with track_all=1, the default.
 * platform-options: exitcode=23
 * platform-stdout
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *s = strdup("clean");
    printf("%s\n", s);
    free(s);
    return 0;
}
