/* inventory.h - a player's items, in a growing array. */
#ifndef INVENTORY_H
#define INVENTORY_H
#include <stddef.h>

typedef struct inventory {
    char **items;
    size_t count, capacity;
} inventory_t;

inventory_t *inventory_new(void);
void inventory_add(inventory_t *inv, const char *name);
/* Frees the array and the inventory, but not the item names: the bug this test finds. */
void inventory_free(inventory_t *inv);
#endif
