/* Bare metal: the program's own critical section around the tracker. The hooks count
 * their calls and check they are never nested and always get their context: each call
 * into the tracker is one lock and one unlock however many of its own locks it takes
 * inside, none is left held between calls, and once removed the hooks are not called.
 * platform-targets: cortexm
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    unsigned locks, unlocks;
    int held;
} section;

static void enter(void *ctx)
{
    if (ctx != &section || section.held) /* the context given, and never nested */
        _exit(10);
    section.held = 1;
    section.locks++;
}

static void leave(void *ctx)
{
    if (ctx != &section || !section.held)
        _exit(11);
    section.held = 0;
    section.unlocks++;
}

int main(void)
{
    if (memtrack_set_lock_hooks(enter, NULL, &section) != 0) /* both or neither */
        _exit(2);
    if (memtrack_set_lock_hooks(enter, leave, &section) != 1)
        _exit(3);
    char *a = malloc(10);
    char *b = strdup("hooked");
    free(a); /* three calls: three sections, each balanced */
    if (section.locks != 3 || section.unlocks != 3 || section.held)
        _exit(4);
    b = realloc(b, 32);
    if (memtrack_check() != 0 || section.locks != 5 || section.unlocks != 5)
        _exit(5);
    memtrack_set_lock_hooks(NULL, NULL, NULL);
    free(malloc(1));
    if (section.locks != 5 || section.unlocks != 5) /* removed: not called */
        _exit(6);
    return b == NULL; /* b leaks: the exit report names it */
}
