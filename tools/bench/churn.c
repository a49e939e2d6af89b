/* churn.c - the churn benchmark: a fixed number of live blocks, each step frees a random
 * one and allocates a new one in its place.
 *
 * One source, several builds (see tools/bench/run.sh):
 *   plain     cc churn.c                          untracked glibc
 *   tracked   cc -DMEMORY_CONTROL_ON -include memtrack.h churn.c -lmemtrack
 *   passthru  cc churn.c -lmemtrack               untracked code in a tracked process
 *   asan      clang -fsanitize=address churn.c
 *   dmalloc   cc churn.c -ldmalloc
 * and `--list` runs the paper's "traditional" tracker (list.c) in the plain build.
 *
 * Blocks are 16..256 bytes; the first and last byte of each new block are written, as a
 * program would. Setup (filling the live set) and teardown are not timed.
 *
 *   churn [--list] [--single] [--live N] [--ops N] [--threads N] [--seed N] [--depth N]
 *
 * --single allocates one block and frees it at once, with no other block live (a thread
 * that mallocs and frees one block at a time).
 *
 * prints one line of key=value pairs: live, ops (per thread), threads, ns_per_pair (CPU
 * time of the slowest thread per malloc+free pair: time the machine gave other processes
 * does not count), wall_ns_per_pair (the same in wall time), mpairs_per_s (all threads, wall
 * time), setup_rss_kb (the peak RSS after setup) and maxrss_kb.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "list.h"

#include "collect.h"

typedef struct rng {
    uint64_t s;
} rng_t;

/* xorshift64*: cheap, and the same stream in every build. */
static uint64_t rng_next(rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * UINT64_C(2685821657736338717);
}

static size_t rng_below(rng_t *r, size_t n)
{
    return (size_t)((rng_next(r) >> 32) * (uint64_t)n >> 32);
}

static size_t pick_size(rng_t *r)
{
    return 16 + rng_below(r, 241); /* 16..256 */
}

static int use_list;
static int single; /* --single: each step allocates one block and frees it at once */
static int depth;  /* --depth N: each block is made N calls deeper (a stack to walk) */

static void *block_new(size_t size)
{
    unsigned char *p = use_list ? list_malloc(size) : malloc(size);
    if (p == NULL) {
        fprintf(stderr, "churn: out of memory\n");
        exit(1);
    }
    p[0] = (unsigned char)size;
    p[size - 1] = (unsigned char)size;
    return p;
}

/* block_new, d calls down: each level keeps its frame (the empty asm after the call stops
 * the compiler from making it a jump). */
static __attribute__((noinline)) void *block_nested(int d, size_t size)
{
    void *p = d > 0 ? block_nested(d - 1, size) : block_new(size);
    __asm__ __volatile__("" : : "r"(p) : "memory");
    return p;
}

static void *block_make(size_t size)
{
    return depth > 0 ? block_nested(depth, size) : block_new(size);
}

static void block_free(void *p)
{
    if (use_list)
        list_free(p);
    else
        free(p);
}

typedef struct worker {
    pthread_t thread;
    size_t live, ops;
    uint64_t seed;
    void **slots;
    double seconds; /* timed part only, wall clock */
    double cpu;     /* the same, CPU time of the thread: preemption on a loaded machine
                       does not count */
} worker_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static pthread_barrier_t start_line;

static void *work(void *arg)
{
    worker_t *w = arg;
    rng_t r = {w->seed * UINT64_C(0x9E3779B97F4A7C15) + 1};
    if (single)
        w->live = 0; /* no live set, not even the slots: the thread's arena empties */
    else
        w->slots = calloc(w->live, sizeof(void *));
    if (w->slots == NULL && !single) {
        fprintf(stderr, "churn: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < w->live; i++)
        w->slots[i] = block_new(pick_size(&r));
    pthread_barrier_wait(&start_line);
    double t0 = now(), c0 = cpu_now();
    TOGGLE_COLLECT();
    for (size_t k = 0; single && k < w->ops; k++)
        block_free(block_make(pick_size(&r)));
    for (size_t k = 0; !single && k < w->ops; k++) {
        size_t i = rng_below(&r, w->live);
        block_free(w->slots[i]);
        w->slots[i] = block_make(pick_size(&r));
    }
    TOGGLE_COLLECT();
    w->cpu = cpu_now() - c0;
    w->seconds = now() - t0;
    pthread_barrier_wait(&start_line); /* all timed parts end before anyone tears down */
    return NULL;
}

static size_t parse_count(const char *s)
{
    char *end;
    double v = strtod(s, &end); /* accepts 1e6 */
    if (end == s || *end != '\0' || v < 1) {
        fprintf(stderr, "churn: bad number '%s'\n", s);
        exit(2);
    }
    return (size_t)v;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    size_t live = 1000, ops = 1000000, threads = 1;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0)
            use_list = 1;
        else if (strcmp(argv[i], "--single") == 0)
            single = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--live") == 0)
            live = parse_count(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--ops") == 0)
            ops = parse_count(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
            threads = parse_count(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--depth") == 0)
            depth = (int)parse_count(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
            seed = parse_count(argv[++i]);
        else {
            fprintf(stderr, "usage: churn [--list] [--single] [--live N] [--ops N] [--depth N] "
                            "[--threads N] [--seed N]\n");
            return 2;
        }
    }
    if (use_list && threads != 1) {
        fprintf(stderr, "churn: the list tracker is single-threaded\n");
        return 2;
    }
    worker_t *w = calloc(threads, sizeof *w);
    if (w == NULL)
        return 1;
    pthread_barrier_init(&start_line, NULL, (unsigned)threads + 1);
    for (size_t t = 0; t < threads; t++) {
        w[t].live = live;
        w[t].ops = ops;
        w[t].seed = seed + t;
        if (pthread_create(&w[t].thread, NULL, work, &w[t]) != 0) {
            fprintf(stderr, "churn: cannot start thread\n");
            return 1;
        }
    }
    pthread_barrier_wait(&start_line); /* setup done everywhere */
    long setup_rss = maxrss_kb();
    double t0 = now();
    pthread_barrier_wait(&start_line); /* timed parts done */
    double wall = now() - t0;
    long rss = maxrss_kb();
    double worst = 0, worst_cpu = 0;
    for (size_t t = 0; t < threads; t++) {
        pthread_join(w[t].thread, NULL);
        if (w[t].seconds > worst)
            worst = w[t].seconds;
        if (w[t].cpu > worst_cpu)
            worst_cpu = w[t].cpu;
    }
    (void)wall;
    for (size_t t = 0; t < threads; t++) {
        if (use_list)
            list_free_all();
        else
            for (size_t i = 0; i < w[t].live; i++)
                block_free(w[t].slots[i]);
        free(w[t].slots);
    }
    printf("live=%zu ops=%zu threads=%zu ns_per_pair=%.2f wall_ns_per_pair=%.2f "
           "mpairs_per_s=%.3f setup_rss_kb=%ld maxrss_kb=%ld\n",
           single ? 0 : live, ops, threads, worst_cpu * 1e9 / (double)ops,
           worst * 1e9 / (double)ops, (double)(ops * threads) / worst / 1e6, setup_rss, rss);
    free(w);
    return 0;
}
