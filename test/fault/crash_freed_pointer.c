/* A crash that follows a pointer read from a freed block: the block waits in the
 * quarantine filled with 0xdd, so the pointer read from it is 0xdddddddddddddddd, and
 * following it faults at no address at all on x86-64 (si_addr 0). The crash report names
 * the register that holds memtrack's fill of freed memory.
 * fault-options: page_guard_rate=0
 * fault-exit: 139
 * fault-abort: no
 */
#include <stdlib.h>

struct node {
    struct node *next;
    int value;
};

int main(void)
{
    struct node *first = malloc(sizeof *first);
    first->next = malloc(sizeof *first);
    first->next->value = 7;
    free(first->next);
    free(first);                 /* first->next now reads 0xdd... */
    return first->next->value;   /* a pointer read from freed memory, followed */
}
