/* Frees that no allocator can take, each reported by file and line and left alone, on
 * every platform: a double free, a free of a stack address, of a static one and of a
 * pointer inside a live block. The program goes on and its block keeps its contents.
 */
#include <stdlib.h>
#include <string.h>

static char table[32];

int main(void)
{
    char *a = malloc(16);
    free(a);
    free(a);        /* again */
    int local = 0;
    free(&local);   /* a stack address */
    free(table);    /* a static one */
    char *b = malloc(32);
    strcpy(b, "intact");
    free(b + 8);    /* inside a live block */
    int ok = strcmp(b, "intact") == 0;
    free(b);
    return ok ? 0 : 1;
}
