/* The statistics and the block numbers are the program's: stdout's buffer, which the C
 * library allocates inside printf, is counted apart ("inside system libraries"), takes no
 * sequence number (the second malloc is #2, not #3) and is not in memtrack_stats().
 * e2e-stdout
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char *first = malloc(10);
    printf("hello\n"); /* the C library makes stdout's buffer */
    char *second = malloc(20);
    memtrack_stats_t st;
    memtrack_stats(&st);
    printf("the program's allocations: %zu (%zu bytes)\n", st.total_blocks, st.total_bytes);
    (void)first;
    (void)second; /* both leak */
    return 0;
}
