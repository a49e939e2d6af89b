/* exit_report.c - what a leaking process pays at exit for its report (bench-exit): the
 * programs of exit_leaks.c built plain, with memtrack (header mode) and with ASan, run
 * interleaved, each run measured by the CPU time it and every process it started used (user
 * and system: this driver adopts their orphans, so LeakSanitizer's symbolizer, which it
 * leaves running at exit, is counted), and a suite of 500 short leaking processes.
 *
 *   exit_report [--quick] PLAIN MEMTRACK ASAN
 *
 * memtrack runs with its defaults, its symbol cache in a directory made for this run (the
 * first process of a program fills it, as a suite's first test does), and for comparison
 * without the cache (symbol_cache=) and, in the suite, without symbolizing (symbolize=0) and
 * without a leak report (leaks=0: what the process pays before its report).
 * Meant to run with the C library's debug information installed (libc6-dbg), the worst
 * case: a report that symbolized the C library's frames would decompress its line tables.
 *
 * The targets (issue 28): a process with 10 leak sites pays at most 5 ms more than the same
 * process freeing its blocks; 2,500 leaks from 1,000 stacks are reported in at most 50 ms;
 * the suite costs at most 1.5x plain, and less than ASan.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ROUNDS 100
#define SUITE 500

enum { PLAIN, MEMTRACK, NOCACHE, NOSYM, NOREPORT, ASAN, VARIANTS };
static const char *const variant_label[VARIANTS] = {"plain",
                                                    "memtrack",
                                                    "memtrack, no cache",
                                                    "memtrack, symbolize=0",
                                                    "memtrack, no leak report (leaks=0)",
                                                    "ASan"};

enum { CLEAN, ONE, SITES, SITES_FREED, MANY, MANY_FREED, MODES };
static const char *const modes[MODES] = {"clean",       "one",  "sites",
                                         "sites-freed", "many", "many-freed"};
static const char *const mode_label[MODES] = {
    "clean exit",      "one leak at main",          "10 leak sites",
    "10 sites, freed", "2,500 leaks, 1,000 stacks", "2,500 blocks, freed"};

extern char **environ;
static int devnull = -1;
static char **env[VARIANTS];

/* The environment of a variant: ours with MEMTRACK_OPTIONS set (or not), made before any
 * fork so that no child copies pages of this process's heap before its exec. */
static char **environment(const char *options)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **e = calloc(n + 2, sizeof *e);
    if (e == NULL)
        return NULL;
    size_t k = 0;
    if (options != NULL)
        e[k++] = (char *)options;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "MEMTRACK_OPTIONS=", 17) != 0 &&
            strncmp(environ[i], "ASAN_OPTIONS=", 13) != 0)
            e[k++] = environ[i];
    e[k] = NULL;
    return e;
}

static double cpu_ms(const struct rusage *ru)
{
    return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 +
           (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
}

/* Runs prog with one argument, its output thrown away; returns the CPU time in ms it and
 * every process it started used, or -1. A leak report's exit status is not a failure. */
static double run_once(const char *prog, const char *arg, char **envp)
{
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (dup2(devnull, STDOUT_FILENO) < 0 || dup2(devnull, STDERR_FILENO) < 0)
            _exit(126);
        char *argv[] = {(char *)prog, (char *)arg, NULL};
        execve(prog, argv, envp);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) >= 126)
        return -1;
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) /* its orphans, adopted */
        ;
    getrusage(RUSAGE_CHILDREN, &after);
    return cpu_ms(&after) - cpu_ms(&before);
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

static double ms[VARIANTS][MODES][MAX_ROUNDS];

static double median_of(int variant, int mode, int rounds)
{
    double v[MAX_ROUNDS];
    memcpy(v, ms[variant][mode], (size_t)rounds * sizeof *v);
    return median(v, rounds);
}

/* The median over the rounds of a - b, both of one variant. */
static double median_diff(int variant, int a, int b, int rounds)
{
    double v[MAX_ROUNDS];
    for (int i = 0; i < rounds; i++)
        v[i] = ms[variant][a][i] - ms[variant][b][i];
    return median(v, rounds);
}

/* The C library's separate debug information, by its build id: present or not. */
static int libc_debug_found(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    if (strstr(info->dlpi_name, "/libc.so") == NULL)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
            const unsigned char *desc =
                (const unsigned char *)(p + sizeof *n + ((n->n_namesz + 3) & ~3u));
            if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz > 1) {
                char path[256];
                int len = snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%02x/", desc[0]);
                for (unsigned k = 1; k < n->n_descsz && len < 200; k++)
                    len += snprintf(path + len, sizeof path - (size_t)len, "%02x", desc[k]);
                snprintf(path + len, sizeof path - (size_t)len, ".debug");
                *(int *)ctx = access(path, R_OK) == 0;
                return 1;
            }
            p += sizeof *n + ((n->n_namesz + 3) & ~3u) + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

/* Removes the run's cache directory: dir/memtrack/FILES. */
static void remove_cache(const char *dir)
{
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/memtrack", dir);
    DIR *d = opendir(sub);
    struct dirent *de;
    while (d != NULL && (de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            (void)unlinkat(dirfd(d), de->d_name, 0);
    if (d != NULL)
        closedir(d);
    (void)rmdir(sub);
    (void)rmdir(dir);
}

static const char *verdict(bool pass)
{
    return pass ? "PASS" : "MISS";
}

int main(int argc, char **argv)
{
    int rounds = 30, a = 1;
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) {
        rounds = 10;
        a = 2;
    }
    if (argc - a != 3) {
        fprintf(stderr, "usage: exit_report [--quick] PLAIN MEMTRACK ASAN\n");
        return 2;
    }
    const char *prog[VARIANTS] = {argv[a],     argv[a + 1], argv[a + 1],
                                  argv[a + 1], argv[a + 1], argv[a + 2]};
    bool used[VARIANTS] = {true, true, true, false, false, access(prog[ASAN], X_OK) == 0};
    char cache[] = "/tmp/memtrack-bench-cache.XXXXXX";
    if (mkdtemp(cache) == NULL || setenv("XDG_CACHE_HOME", cache, 1) != 0)
        return 1;
    env[PLAIN] = environment(NULL);
    env[MEMTRACK] = environment(NULL);
    env[NOCACHE] = environment("MEMTRACK_OPTIONS=symbol_cache=");
    env[NOSYM] = environment("MEMTRACK_OPTIONS=symbolize=0");
    env[NOREPORT] = environment("MEMTRACK_OPTIONS=leaks=0");
    env[ASAN] = environment(NULL);
    devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    int libc_debug = 0;
    dl_iterate_phdr(libc_debug_found, &libc_debug);
    if (devnull < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        return 1;

    for (int v = 0; v < VARIANTS; v++) /* warm the page cache and the loader's */
        for (int m = 0; m < MODES && used[v]; m++)
            for (int i = 0; i < 3; i++)
                (void)run_once(prog[v], modes[m], env[v]);
    for (int i = 0; i < rounds; i++)
        for (int m = 0; m < MODES; m++)
            for (int v = 0; v < VARIANTS; v++) {
                if (!used[v])
                    continue;
                ms[v][m][i] = run_once(prog[v], modes[m], env[v]);
                if (ms[v][m][i] < 0) {
                    fprintf(stderr, "exit_report: %s %s failed\n", prog[v], modes[m]);
                    return 1;
                }
            }

    /* The suite: SUITE short leaking processes of each, interleaved one by one; memtrack's
     * cache starts empty for it, as a new build's suite does. */
    remove_cache(cache);
    if (mkdir(cache, 0700) != 0)
        return 1;
    used[NOSYM] = used[NOREPORT] = true; /* the suite's only */
    double suite[VARIANTS] = {0};
    for (int i = 0; i < SUITE; i++)
        for (int v = 0; v < VARIANTS; v++) {
            if (!used[v])
                continue;
            double t = run_once(prog[v], "test", env[v]);
            if (t < 0) {
                fprintf(stderr, "exit_report: %s test failed\n", prog[v]);
                return 1;
            }
            suite[v] += t;
        }
    remove_cache(cache);

    printf("## Exit report: what a leaking process pays at exit (%d rounds, medians; the C "
           "library's debug information %s)\n\n",
           rounds, libc_debug ? "installed" : "NOT installed: not the worst case");
    printf("| program (CPU ms a run) | plain | memtrack | memtrack, no cache | ASan |\n"
           "|---|---|---|---|---|\n");
    for (int m = 0; m < MODES; m++) {
        printf("| %s |", mode_label[m]);
        for (int v = 0; v < VARIANTS; v++)
            if (v == NOSYM || v == NOREPORT)
                continue;
            else if (!used[v])
                printf(" n/a |");
            else
                printf(" %.2f |", median_of(v, m, rounds));
        printf("\n");
    }
    printf("\n%d short leaking processes (`exit_leaks test`), CPU s in all:\n\n", SUITE);
    for (int v = 0; v < VARIANTS; v++)
        if (used[v])
            printf("- %s: %.2f s (%.2fx plain)\n", variant_label[v], suite[v] / 1e3,
                   suite[v] / suite[PLAIN]);
        else
            printf("- %s: n/a\n", variant_label[v]);

    double sites = median_diff(MEMTRACK, SITES, SITES_FREED, rounds);
    double many = median_diff(MEMTRACK, MANY, MANY_FREED, rounds);
    double ratio = suite[MEMTRACK] / suite[PLAIN];
    printf("\nmemtrack's report, the median of per-round differences: one leak %+.2f ms over "
           "the clean exit; 10 sites %+.2f ms over the same blocks freed (no cache: %+.2f); "
           "2,500 leaks %+.2f ms over the same blocks freed (no cache: %+.2f).\n",
           median_diff(MEMTRACK, ONE, CLEAN, rounds), sites,
           median_diff(NOCACHE, SITES, SITES_FREED, rounds), many,
           median_diff(NOCACHE, MANY, MANY_FREED, rounds));
    printf("\nTargets (issue 28):\n");
    printf("   %s  10 leak sites: at most 5 ms more at exit than the same process freeing them "
           "(%+.2f ms)\n",
           verdict(sites <= 5.0), sites);
    printf("   %s  2,500 leaks from 1,000 stacks: the report in at most 50 ms (%+.2f ms)\n",
           verdict(many <= 50.0), many);
    printf("   %s  %d short leaking processes: at most 1.5x plain (%.2fx)\n", verdict(ratio <= 1.5),
           SUITE, ratio);
    if (used[ASAN])
        printf("   %s  %d short leaking processes: below ASan (%.2f s against %.2f s)\n",
               verdict(suite[MEMTRACK] < suite[ASAN]), SUITE, suite[MEMTRACK] / 1e3,
               suite[ASAN] / 1e3);
    else
        printf("   n/a   %d short leaking processes: below ASan (clang's ASan not installed)\n",
               SUITE);
    if (!libc_debug)
        printf("   (the C library's debug information is not installed: tools/deps.sh bench "
               "installs libc6-dbg)\n");
    printf("\n");
    return 0;
}
