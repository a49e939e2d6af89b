/* startup.c - what tracking adds to a process's start and exit: a program that makes one
 * block and frees it, run plain, built with memtrack (header mode) and under --preload,
 * interleaved, each run measured by the CPU time the process used (user and system, from
 * wait4: a loaded machine stretches wall-clock times, much less a process's own CPU time).
 *
 *   startup [--quick] PLAIN TRACKED [PRELOAD_LIB]
 *
 * Suites made of many small processes pay this once a process. The target: a tracked
 * process within 0.5 ms of a plain one (the median of per-round differences).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ROUNDS 2000

/* Runs prog once, its output thrown away; returns its CPU time in ms, or -1. */
static double run_once(const char *prog, const char *preload)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (preload != NULL) {
            setenv("LD_PRELOAD", preload, 1);
            setenv("MEMTRACK_OPTIONS", "track_all=1", 1);
        }
        if (freopen("/dev/null", "w", stdout) == NULL || freopen("/dev/null", "w", stderr) == NULL)
            _exit(126);
        execl(prog, prog, (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int rounds = 400, a = 1;
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) {
        rounds = 150;
        a = 2;
    }
    if (argc - a < 2) {
        fprintf(stderr, "usage: startup [--quick] PLAIN TRACKED [PRELOAD_LIB]\n");
        return 2;
    }
    const char *plain = argv[a], *tracked = argv[a + 1];
    const char *preload = argc - a > 2 ? argv[a + 2] : NULL;
    static double t_plain[MAX_ROUNDS], t_tracked[MAX_ROUNDS], t_pre[MAX_ROUNDS];
    static double d_tracked[MAX_ROUNDS], d_pre[MAX_ROUNDS];
    for (int i = 0; i < 10; i++) /* warm the page cache and the loader's */
        (void)run_once(tracked, NULL), (void)run_once(plain, NULL);
    for (int i = 0; i < rounds; i++) {
        t_plain[i] = run_once(plain, NULL);
        t_tracked[i] = run_once(tracked, NULL);
        t_pre[i] = preload != NULL ? run_once(plain, preload) : 0;
        if (t_plain[i] < 0 || t_tracked[i] < 0 || t_pre[i] < 0) {
            fprintf(stderr, "startup: a run failed\n");
            return 1;
        }
        d_tracked[i] = t_tracked[i] - t_plain[i];
        d_pre[i] = t_pre[i] - t_plain[i];
    }
    double extra = median(d_tracked, rounds);
    printf("## Start-up: one malloc and free per process (%d rounds, medians)\n\n", rounds);
    printf("| process | CPU ms per run | added to plain |\n|---|---|---|\n");
    printf("| plain | %.2f | |\n", median(t_plain, rounds));
    printf("| memtrack (header mode) | %.2f | %+.2f ms |\n", median(t_tracked, rounds), extra);
    if (preload != NULL)
        printf("| memtrack --preload | %.2f | %+.2f ms |\n", median(t_pre, rounds),
               median(d_pre, rounds));
    printf("\ntracked process within 0.5 ms of plain: %s (%+.2f ms)\n\n",
           extra <= 0.5 ? "PASS" : "MISS", extra);
    return 0;
}
