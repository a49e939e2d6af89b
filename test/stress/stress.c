/* stress.c - eight threads mix everything at once: allocations of every kind, frees,
 * reallocs, overruns, underruns, writes after free, double frees (by one thread, and the
 * same blocks by two threads racing), reallocs of freed blocks, frees of bad pointers,
 * impossible sizes and concurrent memtrack_check() calls. Each thread counts the errors it
 * caused; at the end memtrack's counts per kind must equal the sums, and every block a
 * thread held must have kept its contents throughout.
 *
 *   stress [ITERATIONS]   per thread, default 20000
 *
 * Also built with ThreadSanitizer by `make sanitize` (the sanitizer's allocator underneath).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors/error.h"

#define THREADS 8
#define SLOTS 64
#define SHARED 512 /* blocks two threads race to free, per round */
#define AT __FILE__, __LINE__, __func__

typedef struct counts {
    size_t overrun, underrun, double_free, waf, invalid, failed;
} counts_t;

static counts_t caused[THREADS];
static atomic_int content_errors;
static char static_area[64];
static void *shared[SHARED];
static pthread_barrier_t round_start, round_end;
static unsigned long iterations = 20000;

typedef struct slot {
    unsigned char *p;
    size_t size;
    unsigned char fill;
} slot_t;

static unsigned rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

static void fill(slot_t *s, unsigned char v)
{
    s->fill = v;
    memset(s->p, v, s->size);
}

static void verify(const slot_t *s)
{
    for (size_t i = 0; i < s->size; i++)
        if (s->p[i] != s->fill) {
            atomic_fetch_add(&content_errors, 1);
            return;
        }
}

static void release(slot_t *s, unsigned *state, counts_t *c)
{
    verify(s);
    memtrack_free_at(s->p, AT);
    switch (rnd(state) % 16) {
    case 0: /* a double free while it surely is in quarantine */
        memtrack_free_at(s->p, AT);
        c->double_free++;
        break;
    case 1: /* a realloc of the freed block */
        if (memtrack_realloc_at(s->p, 10, AT) != NULL || errno != EINVAL)
            atomic_fetch_add(&content_errors, 1);
        c->double_free++;
        break;
    case 2: /* a write after free: reported when it leaves quarantine or at a check */
        if (s->size > 0) {
            s->p[rnd(state) % s->size] ^= 0x5a;
            c->waf++;
        }
        break;
    }
    s->p = NULL;
}

static void one_step(slot_t *slots, unsigned *state, counts_t *c)
{
    slot_t *s = &slots[rnd(state) % SLOTS];
    unsigned op = rnd(state) % 100;
    volatile char local[32];
    if (s->p == NULL) {
        s->size = rnd(state) % (op < 90 ? 200 : 5000);
        switch (op % 3) {
        case 0: s->p = memtrack_malloc_at(s->size, AT); break;
        case 1: s->p = memtrack_calloc_at(1, s->size, AT); break;
        default: s->p = memtrack_aligned_alloc_at(64, s->size, AT); break;
        }
        if (s->p == NULL)
            atomic_fetch_add(&content_errors, 1);
        else
            fill(s, (unsigned char)rnd(state));
        return;
    }
    if (op < 40) {
        release(s, state, c);
    } else if (op < 60) {
        verify(s);
        size_t size = rnd(state) % 400 + 1;
        unsigned char *q = memtrack_realloc_at(s->p, size, AT);
        if (q == NULL) {
            atomic_fetch_add(&content_errors, 1);
            return;
        }
        for (size_t i = 0; i < (s->size < size ? s->size : size); i++)
            if (q[i] != s->fill) {
                atomic_fetch_add(&content_errors, 1);
                break;
            }
        s->p = q;
        s->size = size;
        fill(s, s->fill);
    } else if (op < 64) { /* damage a guard; the free reports it (once: then it is gone) */
        if (op & 1) {
            s->p[s->size + rnd(state) % 16] ^= 0x33;
            c->overrun++;
        } else {
            s->p[-1 - (int)(rnd(state) % 16)] ^= 0x33;
            c->underrun++;
        }
        release(s, state, c);
    } else if (op < 68) { /* bad pointers: inside a block, on the stack, static */
        switch (op % 3) {
        case 0: memtrack_free_at(s->size > 1 ? s->p + 1 : s->p - 1, AT); break;
        case 1: memtrack_free_at((void *)&local[op % 32], AT); break;
        default: memtrack_free_at(&static_area[op % 64], AT); break;
        }
        c->invalid++;
    } else if (op < 69) {
        if (memtrack_malloc_at(SIZE_MAX - op, AT) != NULL)
            atomic_fetch_add(&content_errors, 1);
        c->failed++;
    } else if (op < 70 && rnd(state) % 64 == 0) { /* each scans every block */
#ifndef __SANITIZE_THREAD__ /* a check reading a freed block while its thread writes to it         \
                             * after free is a race by design; ThreadSanitizer would say so */
        (void)memtrack_check();
#endif
    } else {
        verify(s);
    }
}

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    unsigned state = (unsigned)me * 7919u + 1;
    slot_t slots[SLOTS];
    counts_t *c = &caused[me];
    memset(slots, 0, sizeof slots);
    for (unsigned long i = 0; i < iterations; i++) {
        one_step(slots, &state, c);
        if (i % (iterations / 4 + 1) == 0) { /* a round of racing double frees */
            pthread_barrier_wait(&round_start);
            for (int k = me % (THREADS / 2); k < SHARED; k += THREADS / 2)
                memtrack_free_at(shared[k], AT);
            pthread_barrier_wait(&round_end);
        }
    }
    for (int k = 0; k < SLOTS; k++)
        if (slots[k].p != NULL)
            release(&slots[k], &state, c);
    return NULL;
}

/* Refills the shared blocks between rounds: main waits on the barriers too. */
static void *rounds(void *arg)
{
    (void)arg;
    for (unsigned long i = 0; i < iterations; i++) {
        if (i % (iterations / 4 + 1) != 0)
            continue;
        for (int k = 0; k < SHARED; k++)
            shared[k] = memtrack_malloc_at((size_t)(k % 100), AT);
        pthread_barrier_wait(&round_start);
        pthread_barrier_wait(&round_end);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[THREADS], feeder;
    int bad = 0;
    if (argc > 1)
        iterations = strtoul(argv[1], NULL, 10);
    memtrack_set_option("quiet", "1");
    memtrack_set_option("quarantine", "64m");
    /* The counts expected are those of blocks with guard bytes (a write after free found
     * in quarantine); page-guarded blocks report at the access (test/fault/page_guard_*). */
    memtrack_set_option("page_guard_rate", "0");
    pthread_barrier_init(&round_start, NULL, THREADS + 1);
    pthread_barrier_init(&round_end, NULL, THREADS + 1);
    pthread_create(&feeder, NULL, rounds, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_join(feeder, NULL);
    (void)memtrack_check(); /* writes after free still in quarantine are reported now */

    counts_t sum = {0};
    size_t racing = SHARED * (size_t)((iterations - 1) / (iterations / 4 + 1) + 1);
    for (int i = 0; i < THREADS; i++) {
        sum.overrun += caused[i].overrun;
        sum.underrun += caused[i].underrun;
        sum.double_free += caused[i].double_free;
        sum.waf += caused[i].waf;
        sum.invalid += caused[i].invalid;
        sum.failed += caused[i].failed;
    }
    memtrack_stats_t st;
    memtrack_stats(&st);
    struct {
        const char *name;
        size_t want, got;
    } kinds[] = {
        {"overrun", sum.overrun, mt_error_count(MT_ERROR_OVERRUN)},
        {"underrun", sum.underrun, mt_error_count(MT_ERROR_UNDERRUN)},
        {"double free", sum.double_free + racing, mt_error_count(MT_ERROR_DOUBLE_FREE)},
        {"write after free", sum.waf, mt_error_count(MT_ERROR_WRITE_AFTER_FREE)},
        {"invalid free", sum.invalid, mt_error_count(MT_ERROR_INVALID_FREE)},
        {"failed allocations", sum.failed, st.failed},
        {"live blocks", 0, st.current_blocks},
        {"changed contents", 0, (size_t)atomic_load(&content_errors)},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        bool ok = kinds[k].want == kinds[k].got;
        fprintf(stderr, "stress: %-18s %8zu%s", kinds[k].name, kinds[k].got,
                ok ? "\n" : "  WRONG\n");
        if (!ok)
            fprintf(stderr, "stress:   expected %zu\n", kinds[k].want);
        bad |= !ok;
    }
    fprintf(stderr, "stress: %s, %d threads x %lu operations\n", bad ? "FAILED" : "passed", THREADS,
            iterations);
    return bad;
}
