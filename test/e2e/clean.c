/* A clean program prints nothing at all, as LeakSanitizer does. */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *s = strdup("hello");
    s = realloc(s, 100);
    free(s);
    free(NULL);
    free(calloc(1, 1));
    return 0;
}
