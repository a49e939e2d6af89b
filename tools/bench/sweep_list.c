/* sweep_list.c - the program `make bench-sweep` sweeps with memtrack run --fail-sweep: 2,000
 * allocations (a list of 1,000 nodes, each with a name), every failure handled, so each run
 * is a full one up to its failure and the sweep measures the runs themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
    struct node *next;
    char *name;
} node_t;

static void release(node_t *list)
{
    while (list != NULL) {
        node_t *next = list->next;
        free(list->name);
        free(list);
        list = next;
    }
}

int main(void)
{
    node_t *list = NULL;
    for (int i = 0; i < 1000; i++) {
        node_t *n = malloc(sizeof *n);
        if (n == NULL) {
            release(list);
            return 1;
        }
        char name[32];
        snprintf(name, sizeof name, "node %d", i);
        n->name = strdup(name);
        if (n->name == NULL) {
            free(n);
            release(list);
            return 1;
        }
        n->next = list;
        list = n;
    }
    release(list);
    return 0;
}
