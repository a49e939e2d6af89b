/* A statically linked program has no modules to tell the C library's code from its own:
 * with track_all, a block musl makes and keeps for itself (setenv's string and environment)
 * is a system library's, counted apart, and a block the program's code built without the
 * flag leaks (the library's strdup) is the program's, listed by its address and symbol.
 * platform-untracked: crossing-untracked.c
 * platform-targets: musl
 * platform-options: track_all=1
 */
#include <stdlib.h>

char *lib_strdup(const char *s);

int main(void)
{
    clearenv(); /* the environment musl copies is the run's: the same size every run */
    if (setenv("MEMTRACK_TEST_KEPT", "by musl", 1) != 0) /* musl keeps it until exit */
        return 1;
    char *leak = lib_strdup("the program's"); /* code built without the flag, leaking */
    return leak == NULL;
}
