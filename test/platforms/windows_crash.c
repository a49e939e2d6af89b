/* Windows only: a crash still gets the report. An exception none of the program's handlers
 * takes (here an access violation) reaches memtrack's filter, which checks every block,
 * prints what was corrupted (an overrun of a live block, a write to a freed one) and what
 * was live; then Windows ends the program as it would have (status 0xC0000005, of which
 * wine passes on the low byte).
 * platform-targets: windows
 * platform-status: 5
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
