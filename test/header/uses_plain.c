/* uses_plain.c - an ordinary program with no memtrack calls, for the zero-cost check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
    struct node *next;
    char *name;
};

static struct node *push(struct node *head, const char *name)
{
    struct node *n = (struct node *)malloc(sizeof *n);
    if (n == NULL)
        return head;
    n->name = (char *)malloc(strlen(name) + 1);
    if (n->name != NULL)
        strcpy(n->name, name);
    n->next = head;
    return n;
}

int main(int argc, char **argv)
{
    struct node *list = NULL, *next;
    int i;
    for (i = 0; i < argc; i++)
        list = push(list, argv[i]);
    list = (struct node *)realloc(list, sizeof *list * 2);
    while (list != NULL) {
        next = list->next;
        puts(list->name);
        free(list->name);
        free(list);
        list = next;
    }
    return 0;
}
