/* Windows only: abort() gets the report too (through the C runtime's SIGABRT), then ends
 * the program with status 3 as it would have.
 * platform-targets: windows
 * platform-status: 3
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *name = malloc(4);
    memcpy(name, "abcde", 5); /* one byte past the end */
    abort();
}
