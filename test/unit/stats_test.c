/* stats_test.c - per-thread counters and sequence numbers (src/records/stats.c): exact while one
 * thread tracks, exact sums after threads join, unique sequence numbers everywhere. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>

#include "records/table.h"

#define AT __FILE__, __LINE__, __func__

static void quiet(void)
{
    memtrack_set_option("quiet", "1");
}

TestSuite(stats, .init = quiet);

static uint64_t seq_of(void *p)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)p);
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_locked(s, (uintptr_t)p);
    uint64_t seq = b != NULL ? MT_META_SEQ(b->meta) : 0;
    mt_unlock(&s->lock);
    return seq;
}

Test(stats, one_thread_counts_the_peak_exactly)
{
    enum { N = 1000 };
    static void *blocks[N];
    memtrack_stats_t a, b, c;
    memtrack_stats(&a);
    for (int i = 0; i < N; i++)
        blocks[i] = memtrack_malloc_at(24, AT);
    for (int i = 0; i < N; i++)
        memtrack_free_at(blocks[i], AT);
    memtrack_stats(&b);
    size_t want_blocks = a.current_blocks + N;
    size_t want_bytes = a.current_bytes + 24 * N;
    cr_expect_eq(b.peak_blocks, a.peak_blocks > want_blocks ? a.peak_blocks : want_blocks);
    cr_expect_eq(b.peak_bytes, a.peak_bytes > want_bytes ? a.peak_bytes : want_bytes);
    cr_expect_eq(b.current_blocks, a.current_blocks);
    cr_expect_eq(b.total_blocks, a.total_blocks + N);
    cr_expect_eq(b.frees, a.frees + N);
    /* A peak one block higher than the last is counted to the block. */
    static void *more[N + 1];
    for (int i = 0; i < N + 1; i++)
        more[i] = memtrack_malloc_at(24, AT);
    memtrack_stats(&c);
    cr_expect_eq(c.peak_blocks, b.peak_blocks > want_blocks + 1 ? b.peak_blocks : want_blocks + 1);
    for (int i = 0; i < N + 1; i++)
        memtrack_free_at(more[i], AT);
}

Test(stats, one_thread_numbers_blocks_one_after_another)
{
    /* More than one batch of sequence numbers: still consecutive in one thread. */
    enum { N = 300 };
    static void *blocks[N];
    for (int i = 0; i < N; i++)
        blocks[i] = memtrack_malloc_at(8, AT);
    uint64_t first = seq_of(blocks[0]);
    cr_assert_neq(first, 0);
    for (int i = 1; i < N; i++)
        cr_expect_eq(seq_of(blocks[i]), first + (uint64_t)i, "block %d", i);
    for (int i = 0; i < N; i++)
        memtrack_free_at(blocks[i], AT);
}

enum { THREADS = 4, PER_THREAD = 1000 };
static void *made[THREADS][PER_THREAD];

static void *allocate_then_free_half(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++)
        made[me][i] = memtrack_malloc_at(10, AT);
    for (int i = 0; i < PER_THREAD / 2; i++)
        memtrack_free_at(made[me][i], AT);
    return NULL;
}

static pthread_barrier_t made_all;

static void *allocate_wait_free_next(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++)
        made[me][i] = memtrack_malloc_at(10, AT);
    pthread_barrier_wait(&made_all);
    for (int i = 0; i < PER_THREAD / 2; i++)
        memtrack_free_at(made[(me + 1) % THREADS][i], AT);
    return NULL;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

Test(stats, threads_sum_exactly_once_joined)
{
    memtrack_stats_t a, b;
    pthread_t t[THREADS];
    memtrack_stats(&a);
    pthread_barrier_init(&made_all, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, allocate_wait_free_next, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    memtrack_stats(&b);
    cr_expect_eq(b.current_blocks, a.current_blocks + THREADS * PER_THREAD / 2);
    cr_expect_eq(b.current_bytes, a.current_bytes + 10 * THREADS * PER_THREAD / 2);
    cr_expect_eq(b.total_blocks, a.total_blocks + THREADS * PER_THREAD);
    cr_expect_eq(b.frees, a.frees + THREADS * PER_THREAD / 2);
    cr_expect_geq(b.peak_blocks, b.current_blocks);
    /* Batches of sequence numbers never overlap: every live block has its own. */
    static uint64_t seqs[THREADS * PER_THREAD / 2];
    size_t n = 0;
    for (int k = 0; k < THREADS; k++)
        for (int i = PER_THREAD / 2; i < PER_THREAD; i++)
            seqs[n++] = seq_of(made[k][i]);
    qsort(seqs, n, sizeof seqs[0], compare_u64);
    for (size_t i = 1; i < n; i++)
        cr_expect_neq(seqs[i], seqs[i - 1], "sequence number %llu given twice",
                      (unsigned long long)seqs[i]);
    for (int k = 0; k < THREADS; k++)
        for (int i = PER_THREAD / 2; i < PER_THREAD; i++)
            memtrack_free_at(made[k][i], AT);
    memtrack_stats(&b);
    cr_expect_eq(b.current_blocks, a.current_blocks);
    cr_expect_eq(b.current_bytes, a.current_bytes);
}

Test(stats, counts_survive_the_threads_that_made_them)
{
    /* Threads that exit hand their slot on with its counts: the blocks they left are
     * still counted, and freeing them here brings the totals back. Twice: slots reused. */
    for (int round = 0; round < 2; round++) {
        memtrack_stats_t a, b;
        pthread_t t[THREADS];
        memtrack_stats(&a);
        for (int i = 0; i < THREADS; i++) {
            pthread_create(&t[i], NULL, allocate_then_free_half, (void *)(intptr_t)i);
            pthread_join(t[i], NULL); /* one at a time */
        }
        memtrack_stats(&b);
        cr_expect_eq(b.current_blocks, a.current_blocks + THREADS * PER_THREAD / 2);
        cr_expect_eq(b.total_blocks, a.total_blocks + THREADS * PER_THREAD);
        cr_expect_geq(b.peak_blocks, a.current_blocks + THREADS * PER_THREAD / 2);
        for (int k = 0; k < THREADS; k++)
            for (int i = PER_THREAD / 2; i < PER_THREAD; i++)
                memtrack_free_at(made[k][i], AT);
        memtrack_stats(&b);
        cr_expect_eq(b.current_blocks, a.current_blocks);
        cr_expect_eq(b.current_bytes, a.current_bytes);
    }
}

static pthread_barrier_t step;
static void *before_mark, *after_mark;

static void *allocate_around_a_mark(void *arg)
{
    (void)arg;
    before_mark = memtrack_malloc_at(8, AT); /* takes a batch of numbers */
    pthread_barrier_wait(&step);             /* main takes its mark */
    pthread_barrier_wait(&step);
    after_mark = memtrack_malloc_at(8, AT); /* from the same batch, were it kept */
    return NULL;
}

Test(stats, a_checkpoint_retires_other_threads_batches)
{
    pthread_t t;
    pthread_barrier_init(&step, NULL, 2);
    pthread_create(&t, NULL, allocate_around_a_mark, NULL);
    pthread_barrier_wait(&step);
    unsigned long mark = memtrack_checkpoint();
    pthread_barrier_wait(&step);
    pthread_join(t, NULL);
    cr_expect_lt(seq_of(before_mark), mark);
    cr_expect_geq(seq_of(after_mark), mark, "block made after mark %lu numbered %llu", mark,
                  (unsigned long long)seq_of(after_mark));
    cr_expect_eq(memtrack_report_since(mark), 1, "report_since counts the later block");
    memtrack_free_at(before_mark, AT);
    memtrack_free_at(after_mark, AT);
}

Test(stats, one_thread_checkpoints_keep_numbers_consecutive)
{
    void *a = memtrack_malloc_at(8, AT);
    unsigned long mark = memtrack_checkpoint();
    void *b = memtrack_malloc_at(8, AT);
    cr_expect_eq(seq_of(b), mark);
    cr_expect_eq(seq_of(b), seq_of(a) + 1);
    memtrack_free_at(a, AT);
    memtrack_free_at(b, AT);
}
