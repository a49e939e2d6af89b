/* A crash still gets the report: the SIGSEGV handler checks every block, prints what was
 * corrupted (an overrun of a live block, a write to a freed one) and what was live, then
 * the default action ends the process (status 139, a core dump where enabled).
 * fault-exit: 139
 * fault-abort: no
 */
#include <stdlib.h>
#include <string.h>

struct node {
    struct node *next;
    int value;
};

int main(void)
{
    char *name = malloc(8);
    strcpy(name, "12345678"); /* the terminating zero lands in the guard */
    struct node *n = malloc(sizeof *n);
    n->next = NULL;
    free(n);
    n->value = 42; /* a write after free */
    struct node *head = calloc(1, sizeof *head);
    head->next = (struct node *)16; /* a corrupted pointer... */
    return head->next->value;       /* ...followed */
}
