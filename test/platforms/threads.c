/* Four threads allocate at once and each frees the blocks another thread made; each
 * leaves two blocks behind at one site. Under an emulator too (qemu-user runs each thread
 * as a host thread).
 *
 * Sequence numbers come in per-thread batches and the peak is published every few dozen
 * events per thread, so the report lists no sequence numbers, and main sets the peak
 * alone (1000 blocks of 64 bytes); the C library's blocks per thread vary (track_all=0).
 * platform-options: report_seqs=0:track_all=0
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define THREADS 4
#define BLOCKS 200

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
    for (i = 0; i < 2; i++)
        (void)calloc(1, 100);     /* the leaks */
    return NULL;
}

int main(void)
{
    static void *peak[1000];
    pthread_t t[THREADS];
    int i;
    for (i = 0; i < 1000; i++)
        peak[i] = malloc(64);
    for (i = 0; i < 1000; i++)
        free(peak[i]);
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&barrier);
    return 0;
}
