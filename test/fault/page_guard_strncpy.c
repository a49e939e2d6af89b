/* A one-byte overrun by strncpy, the block's site page-guarded: the fault names the line of
 * the copy (strncpy's caller: strncpy itself is the C library's), once, and the program goes
 * on; the guard check at free has nothing more to say.
 * fault-options: page_guard_site=page_guard_strncpy.c:13
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *greeting = argc > 1 ? argv[1] : "Hello, world!";
    char *copy = malloc(13);
    strncpy(copy, greeting, 14); /* the terminating zero goes one past the end */
    printf("%.13s\n", copy);
    free(copy);
    return 0;
}
