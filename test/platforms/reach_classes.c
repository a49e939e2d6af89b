/* The leak scan on every target: a block held in a global, one in a static local, two in a
 * chain from a static global, a lost block and one only it holds, one only a pointer into
 * its middle holds: each in its class, as on Linux x86-64 (where what holds each is named
 * too: test/e2e/reach.c, which also holds blocks in frames and threads). The reports must
 * be the same everywhere: the modules' data, found on each target its own way, are roots,
 * the tracker's own data never is, and the stack of main, returned, holds nothing.
 */
#include <stdlib.h>
#include <string.h>

struct node { /* 32 bytes whatever the size of a pointer */
    struct node *next;
};
#define NODE 32

void *g_cache;
static struct node *g_list;
static char *g_middle;

static void remember(void)
{
    static char *kept;
    kept = strdup("kept by a static local");
}

static void lose(void)
{
    struct node *head = malloc(NODE);
    head->next = malloc(NODE);
    head->next->next = NULL;
}

int main(void)
{
    g_cache = malloc(100);
    remember();
    g_list = malloc(NODE);
    g_list->next = malloc(NODE);
    g_list->next->next = NULL;
    lose();
    g_middle = (char *)malloc(64) + 32;
    return 0;
}
