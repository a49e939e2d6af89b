/* A block bigger than the quarantine goes back to the C library at once (here a 2 MiB one,
 * which glibc unmaps); freeing it again is still named a double free, with the block's sites,
 * and so is a realloc of it: the shard remembers the last blocks it gave back.
 */
#include <stdlib.h>

int main(void)
{
    char *big = malloc(2u << 20);
    big[0] = 1;
    free(big);
    free(big);
    char *again = realloc(big, 10); /* NULL: nothing is moved */
    return again != NULL;
}
