/* A hook table keeps malloc and free as values (as cJSON, jansson and libyaml do): the
 * function-like macros do not expand there, yet the block it makes is tracked and its leak
 * reported at the line that called through the table, with the calls that led there; a
 * direct call leaks too. Both are the program's leaks: 110 bytes, not 10.
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct hooks {
    void *(*alloc)(size_t);
    void (*release)(void *);
} hooks_t;

static hooks_t hooks = {malloc, free};

static void *thing;

static void make_thing(void)
{
    thing = hooks.alloc(100);
}

static void build(void)
{
    make_thing();
}

int main(void)
{
    void *kept = hooks.alloc(8);
    hooks.release(kept);
    build();
    (void)malloc(10);
    printf("made\n");
    return 0;
}
