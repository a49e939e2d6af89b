/* A handler installed before memtrack started (here from .preinit_array, as sanitizer
 * runtimes and preloaded crash reporters do) gets its faults first, as it would without
 * memtrack: this one ends the process its own way, before memtrack's report (a fault a
 * program handles is its own; one whose handler gives up, putting the default action back,
 * is reported: test/hostile/preload_own_handler.sh).
 * fault-exit: 3
 * fault-abort: no
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void user_handler(int sig)
{
    static const char line[] = "the program's own SIGSEGV handler ran\n";
    (void)sig;
    (void)!write(2, line, sizeof line - 1);
    _exit(3);
}

static void install_early(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = user_handler;
    sigaction(SIGSEGV, &sa, NULL);
}

__attribute__((section(".preinit_array"), used)) static void (*early)(void) = install_early;

int main(void)
{
    char *p = malloc(4);
    p[5] = 1;
    *(volatile int *)8 = 0;
    return 0;
}
