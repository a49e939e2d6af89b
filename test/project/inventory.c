/* inventory.c - a growing array of item names. */
#include "inventory.h"

#include <stdlib.h>
#include <string.h>

inventory_t *inventory_new(void)
{
    inventory_t *inv = calloc(1, sizeof *inv);
    return inv;
}

void inventory_add(inventory_t *inv, const char *name)
{
    if (inv->count == inv->capacity) {
        inv->capacity = inv->capacity ? inv->capacity * 2 : 2;
        inv->items = realloc(inv->items, inv->capacity * sizeof *inv->items);
    }
    inv->items[inv->count++] = strdup(name);
}

void inventory_free(inventory_t *inv)
{
    free(inv->items); /* the names are never freed */
    free(inv);
}
