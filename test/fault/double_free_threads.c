/* Eight threads free the same blocks at once, each block by two threads: exactly one of
 * the two frees is reported as a double free, whichever thread wins, and the program
 * goes on. max_messages=0 keeps the output the same from run to run; track_all=0 keeps
 * the C library's own blocks (the threads') out of the counts the program checks.
 * fault-options: max_messages=0:track_all=0
 * fault-abort: no
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define THREADS 8
#define BLOCKS 4000

static void *blocks[BLOCKS];
static pthread_barrier_t start;

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg % (THREADS / 2), i;
    pthread_barrier_wait(&start);
    for (i = me; i < BLOCKS; i += THREADS / 2)
        free(blocks[i]);
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    int i;
    for (i = 0; i < BLOCKS; i++)
        blocks[i] = malloc((size_t)(1 + i % 50));
    pthread_barrier_init(&start, NULL, THREADS);
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    memtrack_stats_t st;
    memtrack_stats(&st);
    return st.errors == BLOCKS && st.frees == BLOCKS && st.current_blocks == 0 ? 0 : 1;
}
