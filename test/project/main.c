/* main.c - builds an inventory, joins two words and forgets them, uses the name table. */
#include <stdio.h>
#include <stdlib.h>

#include "inventory.h"
#include "names.h"
#include "words.h"

int main(void)
{
    inventory_t *inv = inventory_new();
    inventory_add(inv, "sword");
    inventory_add(inv, "shield");
    inventory_add(inv, "potion");
    inventory_free(inv);

    char *title = words_join("dungeon", "master");
    printf("%s, %s\n", title, names_intern("hero"));
    names_intern("villain");
    names_clear();
    return 0; /* title is never freed */
}
