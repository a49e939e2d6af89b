/* Call stacks on every target: a leak made in a helper shows the helper's callers under
 * it, and so does an error found in one. Stack lines are compared by function name (each
 * target names a frame its own way: file and line where libdw reads the debug information,
 * symbol and offset from the program's symbol table elsewhere); the helpers are kept out
 * of line and are no allocation wrappers (they return no block), so every target shows
 * the same frames.
 */
#include <stdlib.h>
#include <string.h>

struct config {
    char *name;
    int loaded;
};

__attribute__((noinline)) static int read_name(struct config *c, const char *s)
{
    c->name = malloc(strlen(s) + 1); /* the leak, made here */
    strcpy(c->name, s);
    return 1;
}

__attribute__((noinline)) int load_config(struct config *c)
{
    c->loaded = read_name(c, "config");
    char *scratch = malloc(8);
    free(scratch);
    free(scratch); /* a double free, found here: main's call under it */
    return c->loaded;
}

int main(void)
{
    struct config c;
    return load_config(&c) == 1 ? 0 : 1;
}
