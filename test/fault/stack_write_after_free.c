/* A write after free behind allocation wrappers: the block is made through make_buffer() and
 * released through drop_buffer(), each a small function that only allocates or frees. The
 * message names the lines that called them, each with its stack: the allocation's, the
 * free's (the line to look at: the pointer was used after it) and the check's.
 */
#include <stdlib.h>
#include <string.h>

static char *make_buffer(size_t n)
{
    char *b = malloc(n);
    if (b == NULL)
        abort();
    return b;
}

static void drop_buffer(char *b)
{
    free(b);
}

static char *request;

static void handle_request(void)
{
    char *b = make_buffer(32);
    strcpy(b, "GET /");
    request = b;
    drop_buffer(b);
}

static void log_request(void)
{
    request[4] = '?'; /* after its free */
}

int main(void)
{
    handle_request();
    log_request();
    memtrack_check();
    return 0;
}
