/* A library built without memtrack (stack_library-untracked.c) makes a block for the
 * program, which never gives it back: the library's function and the program's own
 * player_name() only return the copy they made (allocation wrappers, named), so the leak is
 * headlined at the program's line that dropped it. The library's block the program frees is
 * not a leak.
 * e2e-untracked: stack_library-untracked.c
 */
#include <stdlib.h>

char *lib_name_copy(const char *name);
void lib_name_free(char *name);

static char *player_name(void)
{
    return lib_name_copy("player one");
}

int main(void)
{
    char *title = malloc(6); /* a block of the program's own (which links libmemtrack) */
    free(title);
    char *freed = lib_name_copy("gone");
    lib_name_free(freed);
    (void)player_name();
    return 0;
}
