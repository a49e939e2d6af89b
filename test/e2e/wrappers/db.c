/* db.c - a database's allocator, in the manner of SQLite's: the public db_malloc counts the
 * call and passes it to the internal one, which checks the size, counts the bytes and passes
 * it to the low-level mem_malloc, which keeps the size in front of the block. Each passes the
 * result straight back: at -O2 the two outer calls are jumps (tail calls) and leave no frame.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"

static long bytes_used, calls;

__attribute__((noinline)) static void *mem_malloc(size_t n)
{
    size_t *p = malloc(n + sizeof(size_t));
    if (p == NULL)
        return NULL;
    p[0] = n;
    return p + 1;
}

__attribute__((noinline)) void *db_internal_malloc(size_t n)
{
    if (n == 0 || n > ((size_t)1 << 30))
        return NULL;
    bytes_used += (long)n;
    return mem_malloc(n);
}

void *db_malloc(size_t n)
{
    calls++;
    return db_internal_malloc(n);
}

void db_free(void *p)
{
    if (p == NULL)
        return;
    size_t *h = (size_t *)p - 1;
    bytes_used -= (long)h[0];
    free(h);
}

char *db_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = db_malloc(n);
    if (copy != NULL)
        memcpy(copy, s, n);
    return copy;
}
