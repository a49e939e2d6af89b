/* visits.c - the paper's own measure: records visited to find a live block, for one list,
 * for the paper's 1024 fixed buckets, and for memtrack's growing table.
 *
 * Built with -DMEMORY_CONTROL_ON against the static library, so the blocks it makes are
 * tracked and mt_table_shape() (src/records/table.h) describes the real table. Two patterns:
 *   random   16..256-byte blocks (the churn benchmark's sizes)
 *   strided  80-byte blocks only: the C library lays them out at a fixed stride, so the
 *            paper's hash (address >> 4) takes only every eighth value.
 * For each block the cost of finding it is its position in its chain; a list is one chain.
 *
 *   visits [--pattern random|strided] LIVE...
 * prints one line per LIVE of key=value pairs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records/table.h"

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Mean position of a block in its chain when n blocks spread over `buckets` chains by the
 * paper's index: sum over chains of c(c+1)/2, divided by n. */
static double fixed_visits(void **blocks, size_t n, unsigned buckets, size_t *max_chain)
{
    size_t *count = calloc(buckets, sizeof *count);
    double sum = 0;
    *max_chain = 0;
    if (count == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        count[((uintptr_t)blocks[i] >> 4) & (buckets - 1)]++;
    for (unsigned k = 0; k < buckets; k++) {
        sum += (double)count[k] * (double)(count[k] + 1) / 2.0;
        if (count[k] > *max_chain)
            *max_chain = count[k];
    }
    free(count);
    return sum / (double)n;
}

static void measure(size_t n, int strided)
{
    void **blocks = calloc(n, sizeof *blocks);
    if (blocks == NULL) {
        fprintf(stderr, "visits: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        blocks[i] = malloc(strided ? 80 : 16 + rng_next() % 241);
    /* Churn once through the set so the live blocks are not simply in address order. */
    for (size_t k = 0; k < n; k++) {
        size_t i = rng_next() % n;
        free(blocks[i]);
        blocks[i] = malloc(strided ? 80 : 16 + rng_next() % 241);
    }
    mt_table_shape_t shape;
    mt_table_shape(&shape);
    size_t fixed_max;
    double fixed = fixed_visits(blocks, n, 1024, &fixed_max);
    printf("pattern=%s live=%zu list=%.1f fixed1024=%.2f fixed1024_max=%zu "
           "table=%.3f table_items=%zu table_buckets=%zu table_max=%zu noexpand=%zu\n",
           strided ? "strided" : "random", n, ((double)n + 1) / 2.0, fixed, fixed_max,
           shape.mean_visits, shape.items, shape.buckets, shape.max_chain, shape.noexpand_shards);
    fflush(stdout);
    for (size_t i = 0; i < n; i++)
        free(blocks[i]);
    free(blocks);
}

int main(int argc, char **argv)
{
    int strided = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--pattern") == 0 && i + 1 < argc) {
            strided = strcmp(argv[++i], "strided") == 0;
            continue;
        }
        char *end;
        double v = strtod(argv[i], &end);
        if (end == argv[i] || *end != '\0' || v < 1) {
            fprintf(stderr, "usage: visits [--pattern random|strided] LIVE...\n");
            return 2;
        }
        measure((size_t)v, strided);
    }
    return 0;
}
