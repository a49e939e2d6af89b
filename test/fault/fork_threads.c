/* fork while other threads allocate and free: every lock of the tracker is taken around
 * fork, so the child never inherits one held by a thread it does not have. Each child
 * allocates, reallocates, frees, checks and runs its own exit report (leaks=0: the
 * blocks the busy threads held at the fork are not its concern); a deadlock would end it
 * by SIGALRM and fail the test.
 * fault-abort: no
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_int stop;

static void *hammer(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    void *held[64] = {0};
    while (!atomic_load(&stop)) {
        unsigned i = (seed = seed * 1103515245u + 12345u) >> 16 & 63;
        if (held[i] == NULL)
            held[i] = malloc(1 + (seed >> 8) % 300);
        else if (seed & 1)
            held[i] = realloc(held[i], 1 + (seed >> 9) % 600);
        else {
            free(held[i]);
            held[i] = NULL;
        }
    }
    for (int i = 0; i < 64; i++)
        free(held[i]);
    return NULL;
}

static int child(void)
{
    char *p[100];
    int i, round;
    alarm(20);
    memtrack_set_option("leaks", "0");
    for (round = 0; round < 20; round++) {
        for (i = 0; i < 100; i++)
            p[i] = malloc((size_t)(i + 1));
        for (i = 0; i < 100; i++)
            p[i] = realloc(p[i], (size_t)(2 * i + 2));
        for (i = 0; i < 100; i++)
            free(p[i]);
    }
    return memtrack_check() == 0 ? 0 : 1;
}

int main(void)
{
    pthread_t t[3];
    int i, failures = 0, status;
    for (i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, hammer, (void *)(uintptr_t)(i + 1));
    for (i = 0; i < 40; i++) {
        pid_t pid = fork();
        if (pid == 0)
            exit(child());
        waitpid(pid, &status, 0);
        failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    atomic_store(&stop, 1);
    for (i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    return failures;
}
