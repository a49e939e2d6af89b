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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ROUNDS 2000

extern char **environ;

static int devnull = -1;

/* The environment of a run under --preload: ours with LD_PRELOAD and MEMTRACK_OPTIONS set.
 * Built once, before any fork: a child that called setenv() would copy pages of this
 * process's heap before its exec, and that time is counted as the child's (it made the
 * --preload figure look 0.4 ms dearer on a loaded machine). */
static char **preload_environment(const char *preload)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 3, sizeof *env);
    size_t size = strlen("LD_PRELOAD=") + strlen(preload) + 1;
    char *ld = malloc(size);
    if (env == NULL || ld == NULL)
        return NULL;
    snprintf(ld, size, "LD_PRELOAD=%s", preload);
    size_t k = 0;
    env[k++] = ld;
    env[k++] = "MEMTRACK_OPTIONS=track_all=1";
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
            strncmp(environ[i], "MEMTRACK_OPTIONS=", 17) != 0)
            env[k++] = environ[i];
    env[k] = NULL;
    return env;
}

/* Runs prog once with env, its output thrown away; returns its CPU time in ms, or -1. The
 * child only redirects and execs: nothing it does before exec differs between the runs. */
static double run_once(const char *prog, char **env)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (dup2(devnull, STDOUT_FILENO) < 0 || dup2(devnull, STDERR_FILENO) < 0)
            _exit(126);
        char *argv[] = {(char *)prog, NULL};
        execve(prog, argv, env);
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
    char **preload_env = preload != NULL ? preload_environment(preload) : NULL;
    devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull < 0 || (preload != NULL && preload_env == NULL)) {
        fprintf(stderr, "startup: cannot prepare the runs\n");
        return 1;
    }
    static double t_plain[MAX_ROUNDS], t_tracked[MAX_ROUNDS], t_pre[MAX_ROUNDS];
    static double d_tracked[MAX_ROUNDS], d_pre[MAX_ROUNDS];
    for (int i = 0; i < 10; i++) /* warm the page cache and the loader's */
        (void)run_once(tracked, environ), (void)run_once(plain, environ);
    for (int i = 0; i < rounds; i++) {
        t_plain[i] = run_once(plain, environ);
        t_tracked[i] = run_once(tracked, environ);
        t_pre[i] = preload != NULL ? run_once(plain, preload_env) : 0;
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
