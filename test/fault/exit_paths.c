/* Exactly one report whichever way a process ends: return from main, exit() from another
 * thread while main waits, and the last thread ending after main called pthread_exit.
 * Each child leaks a block of its own size, so its report can be told apart; the parent
 * leaks one after its children are done. The C library's own blocks (a thread's storage,
 * whose size depends on the libraries loaded: UBSan's runtime adds to it) are not tracked,
 * so the reports are the same in every build.
 * fault-abort: no
 * fault-options: track_all=0
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *exit_from_thread(void *arg)
{
    (void)arg;
    (void)malloc(11);
    exit(0);
}

static void *last_thread(void *arg)
{
    (void)arg;
    usleep(20000);
    (void)malloc(12);
    return NULL;
}

int main(void)
{
    pthread_t t;
    int mode, status;
    for (mode = 0; mode < 3; mode++) {
        if (fork() != 0) {
            wait(&status);
            continue;
        }
        if (mode == 0) {
            (void)malloc(10);
            return 0;
        }
        if (mode == 1) {
            pthread_create(&t, NULL, exit_from_thread, NULL);
            pthread_join(t, NULL);
        }
        pthread_create(&t, NULL, last_thread, NULL);
        pthread_exit(NULL);
    }
    (void)malloc(1);
    return 0;
}
