/* startup.c - what tracking adds to a process's start and exit: a program that makes one
 * block and frees it, run plain, built with memtrack (header mode) and under --preload,
 * interleaved, each run measured by the CPU time the process used (user and system, from
 * wait4: a loaded machine stretches wall-clock times, much less a process's own CPU time)
 * and by its page faults.
 *
 *   startup [--quick] PLAIN TRACKED [PRELOAD_LIB [EXIT_PLAIN EXIT_EMPTY EXIT_TRACKED]]
 *
 * The three EXIT programs leave main at once with _exit: plain, linked with a library that
 * holds one function, and linked with libmemtrack. They split the tracked process's extra
 * cost into loading a library at all, what libmemtrack's own loading and constructor add
 * to that, and what the first block and the exit add to the plain program's.
 *
 * Suites made of many small processes pay this once a process. The target: a tracked
 * process within 0.5 ms of a plain one (the median of per-round differences).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
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

/* Runs prog once with env, its output thrown away; returns its CPU time in ms, or -1, and
 * its page faults in *faults. The child only redirects and execs: nothing it does before
 * exec differs between the runs. */
static double run_once(const char *prog, char **env, double *faults)
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
    *faults = (double)(ru.ru_minflt + ru.ru_majflt);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

enum { PLAIN, TRACKED, PRELOAD, EXIT_PLAIN, EXIT_EMPTY, EXIT_TRACKED, RUNS };

static double ms[RUNS][MAX_ROUNDS], faults[RUNS][MAX_ROUNDS];

/* The median over the rounds of (a - b) - (c - d), in ms; c < 0: of a - b. */
static double median_diff(int a, int b, int c, int d, int rounds)
{
    static double v[MAX_ROUNDS];
    for (int i = 0; i < rounds; i++)
        v[i] = ms[a][i] - ms[b][i] - (c >= 0 ? ms[c][i] - ms[d][i] : 0);
    return median(v, rounds);
}

/* The median of a run's CPU time or page faults (a copy is sorted). */
static double median_of(double (*what)[MAX_ROUNDS], int run, int rounds)
{
    static double v[MAX_ROUNDS];
    memcpy(v, what[run], (size_t)rounds * sizeof *v);
    return median(v, rounds);
}

int main(int argc, char **argv)
{
    int rounds = 400, a = 1;
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) {
        rounds = 150;
        a = 2;
    }
    int given = argc - a;
    if (given != 2 && given != 3 && given != 6) {
        fprintf(stderr, "usage: startup [--quick] PLAIN TRACKED [PRELOAD_LIB [EXIT_PLAIN "
                        "EXIT_EMPTY EXIT_TRACKED]]\n");
        return 2;
    }
    const char *prog[RUNS] = {argv[a], argv[a + 1], argv[a]};
    char **env[RUNS] = {environ, environ, NULL, environ, environ, environ};
    bool used[RUNS] = {true, true, given >= 3, given == 6, given == 6, given == 6};
    if (given >= 3)
        env[PRELOAD] = preload_environment(argv[a + 2]);
    for (int r = EXIT_PLAIN; r <= EXIT_TRACKED && given == 6; r++)
        prog[r] = argv[a + 3 + (r - EXIT_PLAIN)];
    devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull < 0 || (used[PRELOAD] && env[PRELOAD] == NULL)) {
        fprintf(stderr, "startup: cannot prepare the runs\n");
        return 1;
    }
    double unused;
    for (int i = 0; i < 10; i++) /* warm the page cache and the loader's */
        for (int r = 0; r < RUNS; r++)
            if (used[r])
                (void)run_once(prog[r], env[r], &unused);
    for (int i = 0; i < rounds; i++)
        for (int r = 0; r < RUNS; r++) {
            if (!used[r])
                continue;
            ms[r][i] = run_once(prog[r], env[r], &faults[r][i]);
            if (ms[r][i] < 0) {
                fprintf(stderr, "startup: a run of %s failed\n", prog[r]);
                return 1;
            }
        }

    double extra = median_diff(TRACKED, PLAIN, -1, -1, rounds);
    printf("## Start-up: one malloc and free per process (%d rounds, medians)\n\n", rounds);
    printf("| process | CPU ms per run | added to plain | page faults |\n|---|---|---|---|\n");
    printf("| plain | %.2f | | %.0f |\n", median_of(ms, PLAIN, rounds),
           median_of(faults, PLAIN, rounds));
    printf("| memtrack (header mode) | %.2f | %+.2f ms | %.0f |\n", median_of(ms, TRACKED, rounds),
           extra, median_of(faults, TRACKED, rounds));
    if (used[PRELOAD])
        printf("| memtrack --preload | %.2f | %+.2f ms | %.0f |\n", median_of(ms, PRELOAD, rounds),
               median_diff(PRELOAD, PLAIN, -1, -1, rounds), median_of(faults, PRELOAD, rounds));
    if (used[EXIT_TRACKED]) {
        printf("\nWhat header mode adds, in parts (each the median of its per-round "
               "difference):\n\n| part | added |\n|---|---|\n");
        printf("| loading a library at all (one with a single function) | %+.2f ms |\n",
               median_diff(EXIT_EMPTY, EXIT_PLAIN, -1, -1, rounds));
        printf("| loading libmemtrack and its constructor, beyond that | %+.2f ms |\n",
               median_diff(EXIT_TRACKED, EXIT_EMPTY, -1, -1, rounds));
        printf("| the first block and the exit, beyond plain's | %+.2f ms |\n",
               median_diff(TRACKED, EXIT_TRACKED, PLAIN, EXIT_PLAIN, rounds));
    }
    printf("\ntracked process within 0.5 ms of plain: %s (%+.2f ms)\n\n",
           extra <= 0.5 ? "PASS" : "MISS", extra);
    return 0;
}
