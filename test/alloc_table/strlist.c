#include <string.h>

#include "strlist.h"

strlist_t *strlist_new(mem_t *mem)
{
    strlist_t *list = mem->calloc(1, sizeof *list);
    if (list != NULL)
        list->mem = mem;
    return list;
}

int strlist_push(strlist_t *list, const char *s)
{
    if (list->count == list->room) {
        size_t room = list->room ? 2 * list->room : 4;
        char **items = list->mem->realloc(list->items, room * sizeof *items);
        if (items == NULL)
            return -1;
        list->items = items;
        list->room = room;
    }
    size_t n = strlen(s) + 1;
    char *copy = list->mem->calloc(n, 1);
    if (copy == NULL)
        return -1;
    memcpy(copy, s, n);
    list->items[list->count++] = copy;
    return 0;
}

void strlist_free(strlist_t *list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; i < list->count; i++)
        list->mem->free(list->items[i]);
    list->mem->free(list->items);
    list->mem->free(list);
}
