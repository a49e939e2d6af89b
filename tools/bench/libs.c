/* libs.c - what memtrack costs real libraries (make bench-libs, part of make bench): hosts of
 * Debian's Lua 5.4 (a GC-heavy script set, libs_lua.lua), SQLite (inserts, indexes, selects,
 * updates: libs_sqlite.c) and jansson (documents built, written, parsed: libs_jansson.c),
 * each built plain, with `memtrack cc` and with ASan (frame pointers, as memtrack cc builds),
 * and run as a user would: the libraries' own malloc calls reach memtrack through the
 * process's allocator (track_all=1, the default) and ASan through its interceptors.
 *
 *   libs [--quick] DIR SCRIPT
 *
 * DIR holds the builds (NAME-plain, NAME-memtrack, NAME-asan for lua, sqlite and jansson)
 * and the floor as the process's allocator (libfloor.so, libfloor-full.so: floor_preload.c),
 * preloaded into the plain build; SCRIPT is libs_lua.lua.
 *
 * Variants: plain; memtrack with its defaults; memtrack quarantine=0; ASan with its defaults;
 * floor+ (the design's required parts with memtrack's default fills and quarantine) and the
 * floor (without them). Each run is measured by the CPU time (user and system) the process
 * used, from wait4; the variants run interleaved, round by round, and each figure is the
 * best of the rounds (the least disturbed by the machine's other load). Every run of a
 * workload must print the same checksum, and plain and memtrack runs nothing on stderr.
 *
 * The target (issue 29): on every workload, memtrack's overhead (its time less plain's) at
 * most half of ASan's. A miss prints what floor+ alone gives in the same run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ROUNDS 9

enum { PLAIN, MEMTRACK, MEMTRACK_Q0, ASAN, FLOOR_FULL, FLOOR, VARIANTS };
static const char *const variant_label[VARIANTS] = {"plain", "memtrack", "mt q=0",
                                                    "ASan",  "floor+",   "floor"};
enum { LUA, SQLITE, JANSSON, WORKLOADS };
static const char *const workload_name[WORKLOADS] = {"lua", "sqlite", "jansson"};
static const char *const workload_label[WORKLOADS] = {"Lua 5.4, GC-heavy script set",
                                                      "SQLite, insert/index/select/update",
                                                      "jansson, build/dump/parse"};

static struct {
    double cpu[MAX_ROUNDS]; /* CPU seconds */
    long rss_kb[MAX_ROUNDS];
    char check[64]; /* the first run's checksum line */
} runs[WORKLOADS][VARIANTS];

extern char **environ;
static char **env[VARIANTS];
static const char *dir, *script, *scale[WORKLOADS];
static char out_path[4096], err_path[4096];

/* The environment of a variant: ours without MEMTRACK_OPTIONS, ASAN_OPTIONS and LD_PRELOAD,
 * plus `extra` (two at most, NULL ends), made before any fork. */
static char **environment(const char *extra1, const char *extra2)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **e = calloc(n + 3, sizeof *e);
    if (e == NULL)
        return NULL;
    size_t k = 0;
    if (extra1 != NULL)
        e[k++] = (char *)extra1;
    if (extra2 != NULL)
        e[k++] = (char *)extra2;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "MEMTRACK_OPTIONS=", 17) != 0 &&
            strncmp(environ[i], "ASAN_OPTIONS=", 13) != 0 &&
            strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
            e[k++] = environ[i];
    e[k] = NULL;
    return e;
}

static const char *build_of(int variant)
{
    switch (variant) {
    case MEMTRACK:
    case MEMTRACK_Q0: return "memtrack";
    case ASAN: return "asan";
    default: return "plain";
    }
}

/* The first line of a file, without its newline, into buf ("" when there is none). */
static void first_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f == NULL)
        return;
    if (fgets(buf, (int)size, f) != NULL)
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Runs one workload in one variant; its CPU seconds and peak RSS into round r. Returns
 * false, having said why, when it failed, printed another checksum or (plain, memtrack)
 * wrote to stderr. */
static bool run_once(int w, int v, int r)
{
    char prog[4096];
    snprintf(prog, sizeof prog, "%s/%s-%s", dir, workload_name[w], build_of(v));
    char *argv[4] = {prog, NULL, NULL, NULL};
    if (w == LUA) {
        argv[1] = (char *)script;
        argv[2] = (char *)scale[w];
    } else {
        argv[1] = (char *)scale[w];
    }
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (out < 0 || err < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
            _exit(126);
        execve(prog, argv, env[v]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return false;
    char line[64];
    first_line(out_path, line, sizeof line);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "libs: %s (%s) failed (status %d); its stderr: %s\n", prog,
                variant_label[v], status, err_path);
        return false;
    }
    if (runs[w][PLAIN].check[0] == '\0')
        snprintf(runs[w][PLAIN].check, sizeof runs[w][PLAIN].check, "%s", line);
    if (strcmp(line, runs[w][PLAIN].check) != 0) {
        fprintf(stderr, "libs: %s (%s) printed '%s', plain '%s'\n", prog, variant_label[v], line,
                runs[w][PLAIN].check);
        return false;
    }
    if (v <= MEMTRACK_Q0 && file_size(err_path) != 0) { /* a clean run prints nothing */
        fprintf(stderr, "libs: %s (%s) wrote to stderr: %s\n", prog, variant_label[v], err_path);
        return false;
    }
    runs[w][v].cpu[r] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                        (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    runs[w][v].rss_kb[r] = ru.ru_maxrss;
    return true;
}

static double best(int w, int v, int rounds)
{
    double b = runs[w][v].cpu[0];
    for (int r = 1; r < rounds; r++)
        if (runs[w][v].cpu[r] < b)
            b = runs[w][v].cpu[r];
    return b;
}

static long least_rss(int w, int v, int rounds)
{
    long b = runs[w][v].rss_kb[0];
    for (int r = 1; r < rounds; r++)
        if (runs[w][v].rss_kb[r] < b)
            b = runs[w][v].rss_kb[r];
    return b;
}

/* (variant's time - plain's) / (ASan's - plain's), from the best runs */
static double overhead_share(int w, int v, int rounds)
{
    double plain = best(w, PLAIN, rounds), asan = best(w, ASAN, rounds);
    return asan > plain ? (best(w, v, rounds) - plain) / (asan - plain) : 99.0;
}

int main(int argc, char **argv)
{
    int rounds = 5, a = 1;
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (quick) {
        rounds = 3;
        a = 2;
    }
    if (argc - a != 2) {
        fprintf(stderr, "usage: libs [--quick] DIR SCRIPT\n");
        return 2;
    }
    dir = argv[a];
    script = argv[a + 1];
    /* scales: about 1 s of plain CPU each in a full run on a loaded 2-CPU machine */
    scale[LUA] = quick ? "0.25" : "1";
    scale[SQLITE] = quick ? "0.3" : "1";
    scale[JANSSON] = quick ? "0.15" : "0.6";
    char floor_full[4200], floor_bare[4200];
    snprintf(floor_full, sizeof floor_full, "LD_PRELOAD=%s/libfloor-full.so", dir);
    snprintf(floor_bare, sizeof floor_bare, "LD_PRELOAD=%s/libfloor.so", dir);
    env[PLAIN] = environment(NULL, NULL);
    env[MEMTRACK] = environment(NULL, NULL);
    env[MEMTRACK_Q0] = environment("MEMTRACK_OPTIONS=quarantine=0", NULL);
    env[ASAN] = environment(NULL, NULL);
    env[FLOOR_FULL] = environment(floor_full, NULL);
    env[FLOOR] = environment(floor_bare, NULL);
    snprintf(out_path, sizeof out_path, "%s/libs.out", dir);
    snprintf(err_path, sizeof err_path, "%s/libs.err", dir);

    bool have_asan = true;
    for (int w = 0; w < WORKLOADS; w++) {
        char prog[4096];
        snprintf(prog, sizeof prog, "%s/%s-asan", dir, workload_name[w]);
        have_asan = have_asan && access(prog, X_OK) == 0;
    }
    for (int w = 0; w < WORKLOADS; w++) /* warm the page cache and the loader's */
        for (int v = 0; v < VARIANTS; v++)
            if ((v != ASAN || have_asan) && !run_once(w, v, 0))
                return 1;
    for (int r = 0; r < rounds; r++)
        for (int w = 0; w < WORKLOADS; w++)
            for (int v = 0; v < VARIANTS; v++)
                if ((v != ASAN || have_asan) && !run_once(w, v, r))
                    return 1;

    printf("## Real libraries: CPU seconds (user+sys), best of %d interleaved rounds; ratio to "
           "plain\n\n",
           rounds);
    printf("| workload | plain |");
    for (int v = MEMTRACK; v < VARIANTS; v++)
        printf(" %s |", variant_label[v]);
    printf(" peak RSS: memtrack, ASan |\n|---|---|---|---|---|---|---|---|\n");
    for (int w = 0; w < WORKLOADS; w++) {
        double plain = best(w, PLAIN, rounds);
        printf("| %s (scale %s) | %.2f |", workload_label[w], scale[w], plain);
        for (int v = MEMTRACK; v < VARIANTS; v++)
            if (v == ASAN && !have_asan)
                printf(" n/a |");
            else
                printf(" %.2f (%.2fx) |", best(w, v, rounds), best(w, v, rounds) / plain);
        long rss = least_rss(w, PLAIN, rounds);
        printf(" %.2fx, ", (double)least_rss(w, MEMTRACK, rounds) / (double)rss);
        if (have_asan)
            printf("%.2fx |\n", (double)least_rss(w, ASAN, rounds) / (double)rss);
        else
            printf("n/a |\n");
    }
    printf("\nmemtrack: `memtrack cc`, default options; mt q=0: MEMTRACK_OPTIONS=quarantine=0; "
           "ASan: clang -fsanitize=address -fno-omit-frame-pointer, its defaults; floor+, floor: "
           "tools/bench/floor.c as the process's allocator (LD_PRELOAD into the plain build), "
           "with and without memtrack's default fills and quarantine. Peak RSS: the least of "
           "the rounds, over plain's.\n");
    printf("\nTargets (issue 29): memtrack's overhead at most half of ASan's (overheads: the "
           "best time less plain's)\n");
    for (int w = 0; w < WORKLOADS; w++) {
        if (!have_asan) {
            printf("   n/a   %s: memtrack/ASan overhead (clang's ASan not installed)\n",
                   workload_label[w]);
            continue;
        }
        double share = overhead_share(w, MEMTRACK, rounds);
        printf("   %s  %-40s memtrack/ASan overhead %.2f (<= 0.5); q=0 %.2f",
               share <= 0.5 ? "PASS" : "MISS", workload_label[w], share,
               overhead_share(w, MEMTRACK_Q0, rounds));
        if (share > 0.5)
            printf("; floor+ alone %.2f%s, floor %.2f", overhead_share(w, FLOOR_FULL, rounds),
                   overhead_share(w, FLOOR_FULL, rounds) > 0.5 ? " (beyond the design)" : "",
                   overhead_share(w, FLOOR, rounds));
        printf("\n");
    }
    printf("\n");
    return 0;
}
