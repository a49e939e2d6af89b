/* A crash that follows a pointer never written: malloc's block is filled with 0xcd, so a
 * field the program forgot to set holds 0xcdcdcdcdcdcdcdcd, and following it crashes.
 * The crash report names memtrack's fill of new blocks.
 * fault-options: page_guard_rate=0
 * fault-exit: 139
 * fault-abort: no
 */
#include <stdlib.h>

struct list {
    struct list *next;
    long count;
};

int main(void)
{
    struct list *l = malloc(sizeof *l);
    l->count = 1; /* next is never set */
    return (int)l->next->count;
}
