/* Eight threads allocate and free at once, each freeing blocks another thread made; each
 * leaves exactly three blocks behind at one site.
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
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
