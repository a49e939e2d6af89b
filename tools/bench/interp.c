/* interp.c - an interpreter's allocation pattern, for `make bench`: many small blocks with
 * lifetimes from a few steps to the whole run, strings grown by realloc, and frees of NULL.
 *
 * Each step does what a small dynamic-language interpreter does for one bytecode:
 *   - 45 %: a temporary (16..64 bytes: a boxed number, a tuple) that dies a few dozen
 *     steps later (a ring of 48 pending temporaries);
 *   - 15 %: one append to the string being built (realloc by 8..40 bytes); once past 1 KiB
 *     the string is finished, kept in a global slot, and a new one starts;
 *   - 15 %: a global (4096 slots) replaced by a new 24..512-byte object, the old one freed
 *     (free(NULL) for a slot still empty);
 *   - 15 %: a call frame: 2..9 locals (16..96 bytes) made and freed at its return;
 *   - 10 %: free(NULL) (an optional field that was never set).
 * Built like churn.c (plain, tracked, ASan). Prints steps and ns_per_step (CPU time of the
 * thread over the timed steps; setup and teardown not timed).
 *
 *   interp [--steps N] [--seed N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEMPS 48
#define GLOBALS 4096

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

static size_t between(size_t lo, size_t hi)
{
    return lo + (size_t)((rng_next() >> 32) * (uint64_t)(hi - lo + 1) >> 32);
}

static void *object(size_t size)
{
    unsigned char *p = malloc(size);
    if (p == NULL) {
        fprintf(stderr, "interp: out of memory\n");
        exit(1);
    }
    p[0] = (unsigned char)size; /* a header word, as an object has */
    p[size - 1] = 1;
    return p;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t steps = 2000000;
    rng_state = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--steps") == 0)
            steps = (size_t)strtod(argv[i + 1], NULL);
        else if (strcmp(argv[i], "--seed") == 0)
            rng_state = strtoull(argv[i + 1], NULL, 10) * UINT64_C(0x9E3779B97F4A7C15) + 1;
    }
    void **globals = calloc(GLOBALS, sizeof *globals);
    void *temps[TEMPS] = {0};
    char *text = NULL;
    size_t text_len = 0, next_temp = 0;
    void *optional = NULL; /* never set: its frees are free(NULL) */
    if (globals == NULL)
        return 1;
    for (size_t g = 0; g < GLOBALS / 2; g++) /* the program's state at start */
        globals[g] = object(between(24, 512));

    double t0 = cpu_now();
    for (size_t k = 0; k < steps; k++) {
        unsigned what = (unsigned)between(0, 99);
        if (what < 45) {
            free(temps[next_temp]);
            temps[next_temp] = object(between(16, 64));
            next_temp = (next_temp + 1) % TEMPS;
        } else if (what < 60) {
            size_t add = between(8, 40);
            char *grown = realloc(text, text_len + add + 1);
            if (grown == NULL)
                return 1;
            text = grown;
            memset(text + text_len, 'a' + (int)(k % 26), add);
            text_len += add;
            text[text_len] = '\0';
            if (text_len > 1024) {
                size_t g = between(0, GLOBALS - 1);
                free(globals[g]);
                globals[g] = text;
                text = NULL;
                text_len = 0;
            }
        } else if (what < 75) {
            size_t g = between(0, GLOBALS - 1);
            free(globals[g]);
            globals[g] = object(between(24, 512));
        } else if (what < 90) {
            void *locals[9];
            size_t n = between(2, 9);
            for (size_t i = 0; i < n; i++)
                locals[i] = object(between(16, 96));
            for (size_t i = n; i-- > 0;)
                free(locals[i]);
        } else {
            free(optional);
        }
    }
    double cpu = cpu_now() - t0;

    for (size_t i = 0; i < TEMPS; i++)
        free(temps[i]);
    for (size_t g = 0; g < GLOBALS; g++)
        free(globals[g]);
    free(globals);
    free(text);
    printf("steps=%zu ns_per_step=%.2f\n", steps, cpu * 1e9 / (double)steps);
    return 0;
}
