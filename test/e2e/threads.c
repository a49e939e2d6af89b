/* Eight threads allocate and free at once, each freeing blocks another thread made; each
 * leaves exactly three blocks behind at one site.
 *
 * With several threads, sequence numbers come in per-thread batches and the peak is
 * published every few dozen events per thread (src/records/stats.c), so neither is the same from
 * run to run: the report lists no sequence numbers here, and main sets the peak alone,
 * where it is exact, before the threads start (20000 blocks of 64 bytes, more than the
 * threads ever hold).
 * e2e-options: report_seqs=0
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define THREADS 8
#define BLOCKS 2000

static void *slots[THREADS][BLOCKS];
static pthread_barrier_t barrier;

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg, i;
    for (i = 0; i < BLOCKS; i++)
        slots[me][i] = malloc((size_t)(16 + i % 64));
    pthread_barrier_wait(&barrier);
    for (i = 0; i < BLOCKS; i++)  /* free the next thread's blocks */
        free(slots[(me + 1) % THREADS][i]);
    for (i = 0; i < 3; i++)
        (void)calloc(1, 100);     /* the leaks */
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    int i;
    void **solo = malloc(20000 * sizeof *solo);
    for (i = 0; i < 20000; i++)
        solo[i] = malloc(64);
    for (i = 0; i < 20000; i++)
        free(solo[i]);
    free(solo);
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
