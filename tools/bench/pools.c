/* pools.c - benchmark of memtrack's pools and arenas (make bench-pools; QUICK=1 for a
 * short run). Prints markdown tables:
 *
 *   1. pool allocate+release against glibc malloc+free of the same size, from 1 % to
 *      99 % full (untracked pools);
 *   1b. where a pool keeps its released slots: threaded through them (seed 004) or on a
 *      stack outside them;
 *   2. arena allocation against malloc (with each side's release, amortized, and malloc
 *      alone);
 *   3. the seeds' ways of finding a free slot side by side at 25..99 % full: linear scan
 *      (seed 000), random probing (seed 001), free list (seed 004); probes and ns per
 *      allocation;
 *   4. what tracking costs: tracked against untracked pools and arenas, and tracked
 *      pools against tracked malloc'd blocks.
 *
 * The machine may be shared and noisy: each figure is the fastest of REPS runs (the one
 * least disturbed), the runs of the two sides of a ratio interleaved, and each ratio is
 * taken between the two fastest figures of this one invocation. glibc's allocator is called as
 * __libc_malloc/__libc_free: the process's own malloc here is libmemtrack's, which costs a lookup
 * on free.
 *
 * Steady state everywhere: a set of live objects at the fill level; each step releases a
 * random live one and allocates one, so the fill level stays put and the free slots are
 * scattered as in a game that spawns and despawns every frame.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memtrack.h"

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
/* What the malloc and free macros call with MEMORY_CONTROL_ON (declared by memtrack.h
 * only then): tracked malloc'd blocks, to compare tracked pools with. */
void *memtrack_malloc_at(size_t size, const char *file, int line, const char *func);
void memtrack_free_at(void *ptr, const char *file, int line, const char *func);

static int quick;
static int reps = 5;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static inline uint64_t rng(void)
{
    uint64_t x = rng_state; /* xorshift64 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static inline size_t below(size_t n)
{
    return (size_t)(((unsigned __int128)rng() * n) >> 64);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double best(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[0];
}

/* A precomputed stream of random numbers, so drawing one costs a load in timed loops. */
#define PICKS 65536u
static uint32_t picks[PICKS];

static void fill_picks(void)
{
    for (unsigned i = 0; i < PICKS; i++)
        picks[i] = (uint32_t)rng();
}

static inline size_t pick(size_t step, size_t n)
{
    return (size_t)(((uint64_t)picks[step & (PICKS - 1)] * n) >> 32);
}

/* ---- 1. pools against malloc ---------------------------------------------------------- */

/* The allocators under test, called directly (no function pointers in timed loops). */
enum { POOL_UNTRACKED, POOL_TRACKED, GLIBC, MALLOC_TRACKED };

typedef struct churn {
    int who;
    memtrack_pool_t *pool;
    size_t size;
} churn_t;

static inline void *churn_alloc(const churn_t *c)
{
    switch (c->who) {
    case POOL_UNTRACKED: return memtrack_pool_alloc(c->pool);
    case POOL_TRACKED: return memtrack_pool_alloc_at(c->pool, __FILE__, __LINE__, __func__);
    case MALLOC_TRACKED: return memtrack_malloc_at(c->size, __FILE__, __LINE__, __func__);
    default: return __libc_malloc(c->size);
    }
}

static inline void churn_free(const churn_t *c, void *p)
{
    switch (c->who) {
    case POOL_UNTRACKED: memtrack_pool_free(c->pool, p); break;
    case POOL_TRACKED: memtrack_pool_free_at(c->pool, p, __FILE__, __LINE__, __func__); break;
    case MALLOC_TRACKED: memtrack_free_at(p, __FILE__, __LINE__, __func__); break;
    default: __libc_free(p); break;
    }
}

/* ns per release+allocate at `fill` of `cap` objects of `size` bytes. The same history for
 * every allocator: cap objects made, all but the live ones released in random order. Then
 * rounds of `batch`: that many random live objects released, as many allocated (a frame
 * of a game); batch 1 is one at a time. Only the allocator calls are timed, except for
 * batch 1, where a precomputed pick is in the loop for every allocator alike. */
#define CHURN_LOOP(ALLOC, FREE)                                                                    \
    do {                                                                                           \
        if (batch == 1) {                                                                          \
            double t0 = now_ns();                                                                  \
            for (size_t s = 0; s < steps; s++) {                                                   \
                size_t j = pick(s, live);                                                          \
                FREE(all[j]);                                                                      \
                all[j] = ALLOC;                                                                    \
            }                                                                                      \
            timed = now_ns() - t0;                                                                 \
            break;                                                                                 \
        }                                                                                          \
        for (size_t done = 0; done < steps; done += batch) {                                       \
            for (size_t k = 0; k < batch; k++) { /* victims to the end of the live set */          \
                size_t j = below(live - k), t = live - 1 - k;                                      \
                void *v = all[j];                                                                  \
                all[j] = all[t];                                                                   \
                all[t] = v;                                                                        \
            }                                                                                      \
            double t0 = now_ns();                                                                  \
            for (size_t k = live - batch; k < live; k++)                                           \
                FREE(all[k]);                                                                      \
            for (size_t k = live - batch; k < live; k++)                                           \
                all[k] = ALLOC;                                                                    \
            timed += now_ns() - t0;                                                                \
        }                                                                                          \
    } while (0)

static double run_churn(int who, size_t size, size_t cap, double fill, size_t batch, size_t steps)
{
    churn_t c = {who, NULL, size};
    if (who == POOL_UNTRACKED)
        c.pool = memtrack_pool_create("bench", size, cap);
    else if (who == POOL_TRACKED)
        c.pool = memtrack_pool_create_at("bench", size, cap, __FILE__, __LINE__, __func__);
    size_t live = (size_t)((double)cap * fill);
    if (live < 2)
        live = 2;
    if (batch > live / 2)
        batch = live / 2;
    void **all = malloc(cap * sizeof *all);
    for (size_t i = 0; i < cap; i++)
        all[i] = churn_alloc(&c);
    for (size_t i = cap; i > 1; i--) {
        size_t j = below(i);
        void *t = all[i - 1];
        all[i - 1] = all[j];
        all[j] = t;
    }
    for (size_t i = live; i < cap; i++)
        churn_free(&c, all[i]);
    double timed = 0;
    steps = steps / batch * batch;
#define UNTRACKED_FREE(p) memtrack_pool_free(c.pool, (p))
#define TRACKED_FREE(p) memtrack_pool_free_at(c.pool, (p), __FILE__, __LINE__, __func__)
    switch (who) {
    case POOL_UNTRACKED: CHURN_LOOP(memtrack_pool_alloc(c.pool), UNTRACKED_FREE); break;
    case POOL_TRACKED:
        CHURN_LOOP(memtrack_pool_alloc_at(c.pool, __FILE__, __LINE__, __func__), TRACKED_FREE);
        break;
#define MALLOC_TRACKED_FREE(p) memtrack_free_at((p), __FILE__, __LINE__, __func__)
    case MALLOC_TRACKED:
        CHURN_LOOP(memtrack_malloc_at(size, __FILE__, __LINE__, __func__), MALLOC_TRACKED_FREE);
        break;
    default: CHURN_LOOP(__libc_malloc(size), __libc_free); break;
    }
    if (c.pool != NULL && memtrack_pool_live(c.pool) != live) {
        fprintf(stderr, "pools: the pool lost objects\n");
        exit(1);
    }
    for (size_t i = 0; i < live; i++)
        churn_free(&c, all[i]);
    if (c.pool != NULL)
        memtrack_pool_destroy_at(c.pool, __FILE__, __LINE__, __func__);
    free(all);
    return timed / (double)steps;
}

static void table_pool_vs_malloc(void)
{
    static const double fills[] = {0.01, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99};
    static const size_t sizes[] = {32, 128};
    static const size_t batches[] = {1000, 1};
    size_t cap = quick ? 20000 : 100000;
    size_t steps = quick ? 1000000 : 4000000;
    printf("\n### Pool release+allocate against glibc free+malloc (untracked pool)\n\n");
    printf("%zu objects made, all but the live ones released in random order; then each "
           "round releases `batch` random live objects and allocates as many (a game "
           "frame's despawns and spawns; 1: one at a time). ns per release+allocate.\n\n",
           cap);
    printf("| size | batch | full | pool ns | malloc ns | malloc / pool |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (size_t b = 0; b < sizeof batches / sizeof *batches; b++) {
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            for (size_t f = 0; f < sizeof fills / sizeof *fills; f++) {
                double pool[16], mall[16];
                for (int r = 0; r < reps; r++) {
                    pool[r] = run_churn(POOL_UNTRACKED, sizes[z], cap, fills[f], batches[b], steps);
                    mall[r] = run_churn(GLIBC, sizes[z], cap, fills[f], batches[b], steps);
                }
                double p = best(pool, reps), m = best(mall, reps);
                printf("| %zu | %zu | %.0f %% | %.2f | %.2f | %.1fx |\n", sizes[z], batches[b],
                       fills[f] * 100, p, m, m / p);
            }
        }
    }
}

/* ---- 1b. where the free list lives ---------------------------------------------------- */

/* Two minimal pools over the same slab, to compare only where released slots are kept:
 * threaded through the slots (seed 004) or on a stack of slot numbers outside them (what
 * memtrack's untracked pools do). No bitmap, no checks: the bare methods. */
typedef struct bare_pool {
    unsigned char *slots;
    size_t stride;
    void *head;      /* threaded: the first released slot */
    uint32_t *stack; /* outside: released slot numbers */
    size_t top;
} bare_pool_t;

static inline void *threaded_alloc(bare_pool_t *p)
{
    void *slot = p->head;
    memcpy(&p->head, slot, sizeof(void *));
    return slot;
}

static inline void threaded_free(bare_pool_t *p, void *slot)
{
    memcpy(slot, &p->head, sizeof(void *));
    p->head = slot;
}

static inline void *stack_alloc(bare_pool_t *p)
{
    return p->slots + (size_t)p->stack[--p->top] * p->stride;
}

static inline void stack_free(bare_pool_t *p, void *slot)
{
    p->stack[p->top++] = (uint32_t)(((unsigned char *)slot - p->slots) / p->stride);
}

/* ns per release+allocate, half full, batches of 1000 random victims. */
static double run_bare(int threaded, size_t size, size_t cap, size_t steps)
{
    bare_pool_t p = {.stride = size};
    p.slots = malloc(cap * size);
    p.stack = malloc(cap * sizeof *p.stack);
    void **all = malloc(cap * sizeof *all);
    size_t live = cap / 2, batch = 1000;
    for (size_t i = 0; i < cap; i++)
        all[i] = p.slots + i * size;
    for (size_t i = cap; i > 1; i--) {
        size_t j = below(i);
        void *t = all[i - 1];
        all[i - 1] = all[j];
        all[j] = t;
    }
    for (size_t i = live; i < cap; i++) {
        if (threaded)
            threaded_free(&p, all[i]);
        else
            stack_free(&p, all[i]);
    }
    double timed = 0;
    steps = steps / batch * batch;
    for (size_t done = 0; done < steps; done += batch) {
        for (size_t k = 0; k < batch; k++) {
            size_t j = below(live - k), t = live - 1 - k;
            void *v = all[j];
            all[j] = all[t];
            all[t] = v;
        }
        double t0 = now_ns();
        if (threaded) {
            for (size_t k = live - batch; k < live; k++)
                threaded_free(&p, all[k]);
            for (size_t k = live - batch; k < live; k++)
                all[k] = threaded_alloc(&p);
        } else {
            for (size_t k = live - batch; k < live; k++)
                stack_free(&p, all[k]);
            for (size_t k = live - batch; k < live; k++)
                all[k] = stack_alloc(&p);
        }
        timed += now_ns() - t0;
    }
    free(p.slots);
    free(p.stack);
    free(all);
    return timed / (double)steps;
}

static void table_free_list_placement(void)
{
    static const size_t sizes[] = {32, 128};
    size_t cap = quick ? 20000 : 100000, steps = quick ? 1000000 : 4000000;
    printf("\n### Where released slots are kept\n\n");
    printf("Two bare pools over %zu slots, half full, batches of 1000 random victims: "
           "released slots threaded through the slots (seed 004) or kept on a stack of "
           "slot numbers outside them (memtrack's untracked pools). The objects are not "
           "touched by the program between the calls.\n\n",
           cap);
    printf("| size | threaded ns | stack ns | threaded / stack |\n|---:|---:|---:|---:|\n");
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        double th[16], st[16];
        for (int r = 0; r < reps; r++) {
            th[r] = run_bare(1, sizes[z], cap, steps);
            st[r] = run_bare(0, sizes[z], cap, steps);
        }
        double t = best(th, reps), k = best(st, reps);
        printf("| %zu | %.2f | %.2f | %.1fx |\n", sizes[z], t, k, t / k);
    }
}

/* ---- 2. arenas against malloc ------------------------------------------------------- */

#define ARENA_SIZES 4096u
static size_t arena_sizes[ARENA_SIZES];

/* ns per allocation: fill the arena with random sizes, reset, again (reset included). */
static double run_arena(size_t capacity, size_t allocs, int tracked)
{
    memtrack_arena_t *a =
        tracked ? memtrack_arena_create_at("bench", capacity, __FILE__, __LINE__, __func__)
                : memtrack_arena_create("bench", capacity);
    double t0 = now_ns();
    size_t sink = 0;
    if (tracked) {
        for (size_t i = 0; i < allocs; i++) {
            void *p = memtrack_arena_alloc_at(a, arena_sizes[i & (ARENA_SIZES - 1)], __FILE__,
                                              __LINE__, __func__);
            if (p == NULL) {
                memtrack_arena_reset_at(a, __FILE__, __LINE__, __func__);
                p = memtrack_arena_alloc_at(a, arena_sizes[i & (ARENA_SIZES - 1)], __FILE__,
                                            __LINE__, __func__);
            }
            sink += (uintptr_t)p;
        }
    } else {
        for (size_t i = 0; i < allocs; i++) {
            void *p = memtrack_arena_alloc(a, arena_sizes[i & (ARENA_SIZES - 1)]);
            if (p == NULL) {
                memtrack_arena_reset(a);
                p = memtrack_arena_alloc(a, arena_sizes[i & (ARENA_SIZES - 1)]);
            }
            sink += (uintptr_t)p;
        }
    }
    double ns = (now_ns() - t0) / (double)allocs;
    memtrack_arena_destroy_at(a, __FILE__, __LINE__, __func__);
    if (sink == 1)
        puts("");
    return ns;
}

/* ns per allocation with malloc: a batch as big as the arena holds, then free them all.
 * *alone gets the malloc loop's share only. */
static double run_malloc_batches(size_t capacity, size_t allocs, double *alone)
{
    size_t batch = capacity / 136; /* the sizes' mean */
    void **ptrs = malloc(batch * sizeof *ptrs);
    double in_malloc = 0, t0 = now_ns();
    for (size_t done = 0; done < allocs; done += batch) {
        double m0 = now_ns();
        for (size_t i = 0; i < batch; i++)
            ptrs[i] = __libc_malloc(arena_sizes[(done + i) & (ARENA_SIZES - 1)]);
        in_malloc += now_ns() - m0;
        for (size_t i = 0; i < batch; i++)
            __libc_free(ptrs[i]);
    }
    double ns = (now_ns() - t0) / (double)allocs;
    *alone = in_malloc / (double)allocs;
    free(ptrs);
    return ns;
}

static void table_arena_vs_malloc(void)
{
    size_t capacity = 1u << 20, allocs = quick ? 4000000 : 20000000;
    for (unsigned i = 0; i < ARENA_SIZES; i++)
        arena_sizes[i] = 16 + below(241); /* 16..256 bytes, mean 136 */
    double arena[16], with_free[16], alone[16];
    for (int r = 0; r < reps; r++) {
        arena[r] = run_arena(capacity, allocs, 0);
        with_free[r] = run_malloc_batches(capacity, allocs, &alone[r]);
    }
    double a = best(arena, reps), wf = best(with_free, reps), al = best(alone, reps);
    printf("\n### Arena allocation against malloc (untracked arena)\n\n");
    printf("Random sizes 16..256 bytes; the arena (1 MiB) is reset when full, malloc'd "
           "blocks are freed in batches of the same size (each side's release included); "
           "\"malloc alone\" times the malloc calls only.\n\n");
    printf("| arena ns/alloc | malloc+free ns/alloc | malloc alone ns/alloc | "
           "malloc+free / arena | malloc alone / arena |\n");
    printf("|---:|---:|---:|---:|---:|\n");
    printf("| %.2f | %.2f | %.2f | %.1fx | %.1fx |\n", a, wf, al, wf / a, al / a);
}

/* ---- 3. the seeds' methods side by side ------------------------------------------------ */

typedef struct seed_pool {
    unsigned char *used; /* seeds 000 and 001: a used flag per slot */
    void **next;         /* seed 004: the free list's links, one per slot */
    void *head;
    size_t n;
    uint64_t probes;
} seed_pool_t;

/* Seed 000: scan from the start for the first unused slot. */
static size_t linear_alloc(seed_pool_t *p)
{
    for (size_t i = 0; i < p->n; i++) {
        p->probes++;
        if (!p->used[i]) {
            p->used[i] = 1;
            return i;
        }
    }
    return SIZE_MAX;
}

/* Seed 001: probe random slots until an unused one turns up. */
static size_t random_alloc(seed_pool_t *p)
{
    for (size_t tries = 0; tries < 100 * p->n; tries++) {
        size_t i = below(p->n);
        p->probes++;
        if (!p->used[i]) {
            p->used[i] = 1;
            return i;
        }
    }
    return SIZE_MAX;
}

/* Seed 004: pop the free list threaded through the free slots. */
static size_t freelist_alloc(seed_pool_t *p)
{
    void **slot = p->head;
    p->probes++;
    if (slot == NULL)
        return SIZE_MAX;
    p->head = *slot;
    return (size_t)(slot - p->next);
}

static void used_release(seed_pool_t *p, size_t i)
{
    p->used[i] = 0;
}

static void freelist_release(seed_pool_t *p, size_t i)
{
    p->next[i] = p->head;
    p->head = &p->next[i];
}

typedef struct seed_result {
    double ns, probes;
} seed_result_t;

/* Steady state at `fill`: release a random live slot, allocate one; ns and probes per
 * allocation (the release, a store, is the same for all three). */
static seed_result_t run_seed(int method, size_t n, double fill, size_t steps)
{
    seed_pool_t p = {.n = n};
    p.used = calloc(n, 1);
    p.next = calloc(n, sizeof(void *));
    size_t live = (size_t)((double)n * fill);
    size_t *slots = malloc(n * sizeof *slots);
    for (size_t i = 0; i < n; i++)
        slots[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = below(i), t = slots[i - 1];
        slots[i - 1] = slots[j];
        slots[j] = t;
    }
    for (size_t i = 0; i < n; i++) { /* slots[0..live) live, the rest free */
        if (i < live)
            p.used[slots[i]] = 1;
        else
            freelist_release(&p, slots[i]);
    }
    /* Warm up to the method's own steady state (linear scan packs the low slots). */
    seed_result_t r = {0, 0};
    for (int phase = 0; phase < 2; phase++) {
        size_t count = phase == 0 ? steps / 4 : steps;
        p.probes = 0;
        double t0 = now_ns();
        for (size_t s = 0; s < count; s++) {
            size_t j = pick(s * 7 + (size_t)phase, live);
            if (method == 2)
                freelist_release(&p, slots[j]);
            else
                used_release(&p, slots[j]);
            slots[j] = method == 0   ? linear_alloc(&p)
                       : method == 1 ? random_alloc(&p)
                                     : freelist_alloc(&p);
        }
        r.ns = (now_ns() - t0) / (double)count;
        r.probes = (double)p.probes / (double)count;
    }
    free(p.used);
    free(p.next);
    free(slots);
    return r;
}

static void table_seeds(void)
{
    static const double fills[] = {0.25, 0.50, 0.75, 0.95, 0.99};
    static const char *const names[] = {"linear scan (000)", "random probing (001)",
                                        "free list (004)"};
    size_t n = 10000, steps = quick ? 100000 : 500000;
    printf("\n### Finding a free slot: the seeds' methods side by side\n\n");
    printf("%zu slots; each step releases a random live slot and allocates one. Random "
           "probing's expected probes are 1 / (1 - full): 2 at 50 %%, 4 at 75 %%.\n\n",
           n);
    printf("| method | full | probes/alloc | ns/alloc |\n|---|---:|---:|---:|\n");
    for (int m = 0; m < 3; m++) {
        for (size_t f = 0; f < sizeof fills / sizeof *fills; f++) {
            double ns[16], probes[16];
            for (int r = 0; r < reps; r++) {
                seed_result_t res = run_seed(m, n, fills[f], m == 0 ? steps / 10 : steps);
                ns[r] = res.ns;
                probes[r] = res.probes;
            }
            printf("| %s | %.0f %% | %.2f | %.1f |\n", names[m], fills[f] * 100, best(probes, reps),
                   best(ns, reps));
        }
    }
}

/* ---- 4. what tracking costs ------------------------------------------------------------ */

static void table_tracking(void)
{
    static const size_t sizes[] = {24, 32};
    size_t cap = quick ? 4000 : 20000;
    size_t steps = quick ? 100000 : 500000, allocs = quick ? 500000 : 2000000;
    printf("\n### What tracking costs\n\n");
    printf("Tracked: made through the _at entry points (what the macros call with "
           "MEMORY_CONTROL_ON), default options (16 guard bytes). Pools of %zu objects, "
           "half full, batches of 1000; tracked malloc+free (memtrack_malloc_at, "
           "memtrack_free_at) under the same steps, for scale.\n\n",
           cap);
    printf("| operation | untracked ns | tracked ns | tracked / untracked | "
           "tracked malloc+free ns | tracked pool / tracked malloc |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        double un[16], tr[16], tm[16];
        for (int r = 0; r < reps; r++) {
            un[r] = run_churn(POOL_UNTRACKED, sizes[z], cap, 0.5, 1000, steps * 4);
            tr[r] = run_churn(POOL_TRACKED, sizes[z], cap, 0.5, 1000, steps);
            tm[r] = run_churn(MALLOC_TRACKED, sizes[z], cap, 0.5, 1000, steps);
        }
        double u = best(un, reps), t = best(tr, reps), m = best(tm, reps);
        printf("| pool release+allocate, %zu bytes | %.2f | %.1f | %.0fx | %.1f | %.2fx |\n",
               sizes[z], u, t, t / u, m, t / m);
    }
    double ua[16], ta[16];
    for (int r = 0; r < reps; r++) {
        ua[r] = run_arena(1u << 20, allocs * 4, 0);
        ta[r] = run_arena(1u << 20, allocs, 1);
    }
    double u = best(ua, reps), t = best(ta, reps);
    printf("| arena allocation, 16..256 bytes (reset included) | %.2f | %.1f | %.0fx | | |\n", u, t,
           t / u);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strncmp(argv[i], "--reps=", 7) == 0)
            reps = atoi(argv[i] + 7);
    }
    if (reps < 1 || reps > 15)
        reps = quick ? 3 : 5;
    if (quick && reps == 5)
        reps = 3;
    fill_picks();
    printf("## Pools and arenas (tools/bench/pools.c%s, fastest of %d runs)\n",
           quick ? ", --quick" : "", reps);
    table_pool_vs_malloc();
    table_free_list_placement();
    table_arena_vs_malloc();
    table_seeds();
    table_tracking();
    return 0;
}
