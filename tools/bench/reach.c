/* reach.c - what the leak scan (src/api/reach.c) costs: its time for N live blocks and M MiB
 * of roots (the program's .bss), built two ways from this one source:
 *
 *   tracked (-DMEMORY_CONTROL_ON, linked with libmemtrack.a and its internal headers): makes
 *   the blocks, then times mt_reach_scan, as memtrack_check_leaks and the exit report run
 *   it (CPU time of this thread, the median of --reps scans);
 *   plain: makes the same blocks and exits, for Valgrind's leak check to be timed on.
 *
 * The blocks are 64 bytes, in a list from a global (each holds the next), but every tenth is
 * left out of it and lost, with the block after it only it holds. The roots are M MiB of
 * small numbers (no pointers) in a mapping of their own, registered as a root
 * (memtrack_register_root; Valgrind reads every writable mapping): every word of it read.
 *
 *   reach --blocks N --roots-mb M [--reps R]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "memtrack.h" /* (its calls are no-ops in the plain build) */

static void **head;

static void make_blocks(size_t n)
{
    void **last = NULL;
    for (size_t i = 0; i < n; i++) {
        void **b = malloc(64);
        memset(b, 0, 64);
        if (i % 10 == 9 && last != NULL) { /* lost, holding the next one */
            void **held = malloc(64);
            memset(held, 0, 64);
            b[0] = held;
            i++;
            continue;
        }
        if (last == NULL)
            head = b;
        else
            last[0] = b;
        last = b;
    }
}

#ifdef MEMORY_CONTROL_ON
#include "api/reach.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static MT_NOINLINE double scan_once(size_t *blocks, uint64_t *words)
{
    MT_REACH_FROM_HERE();
    mt_reach_t r;
    double start = now_ms();
    if (!mt_reach_scan(&r)) {
        fprintf(stderr, "reach: no memory for the scan\n");
        exit(1);
    }
    double ms = now_ms() - start;
    *blocks = r.n;
    *words = r.words;
    mt_reach_free(&r);
    mt_reach_leave();
    return ms;
}
#endif

int main(int argc, char **argv)
{
    size_t n = 100000, mb = 1, reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--blocks") == 0)
            n = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--roots-mb") == 0)
            mb = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = strtoul(argv[i + 1], NULL, 10);
    }
    if (reps == 0 || reps > 99)
        return 2;
    size_t bytes = mb * 1024 * 1024;
    uintptr_t *roots =
        bytes != 0 ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                   : NULL;
    if (roots == MAP_FAILED)
        return 2;
    for (size_t i = 0; i < bytes / sizeof(uintptr_t); i++)
        roots[i] = i & 0xffff; /* read, never a block's address */
    if (bytes != 0)
        memtrack_register_root(roots, bytes);
    make_blocks(n);
#ifdef MEMORY_CONTROL_ON
    double ms[99];
    size_t blocks = 0;
    uint64_t words = 0;
    for (size_t k = 0; k < reps; k++)
        ms[k] = scan_once(&blocks, &words);
    qsort(ms, reps, sizeof ms[0], cmp_double);
    printf("blocks %zu roots_mb %zu words %llu scan_ms %.2f\n", blocks, mb,
           (unsigned long long)words, ms[reps / 2]);
    memtrack_set_option("leaks", "0"); /* the exit report's own scan is not timed */
#endif
    return head == NULL;
}
