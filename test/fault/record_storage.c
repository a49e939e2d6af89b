/* When the tracker cannot store a record, the allocation fails cleanly: NULL, errno ENOMEM,
 * counted as failed, never an untracked block. The testing option test_fail_storage=4 makes
 * the 4th and later allocations of record storage fail: the first slab of records and the
 * live table's two allocations (uthash's table and its buckets) succeed, the next slab
 * does not. Blocks made before stay valid; freed records are reused, so allocations work
 * again once blocks are freed.
 * fault-options: test_fail_storage=4:quarantine=0
 * fault-abort: no
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

int main(void)
{
    char *p[N];
    int made = 0, failed = 0, i;
    for (i = 0; i < N; i++) {
        errno = 0;
        p[i] = malloc(8);
        if (p[i] != NULL) {
            memset(p[i], i & 0x7f, 8);
            made++;
        } else if (errno == ENOMEM) {
            failed++;
        }
    }
    memtrack_stats_t st;
    memtrack_stats(&st);
    if (made == 0 || failed == 0 || made + failed != N)
        return 1;
    if (st.failed != (size_t)failed || st.current_blocks != (size_t)made)
        return 2;
    for (i = 0; i < N; i++)
        if (p[i] != NULL && (p[i][0] != (char)(i & 0x7f) || p[i][7] != (char)(i & 0x7f)))
            return 3; /* a block made before the failures changed */
    /* Free all but the first (an empty table would give its buckets back, and a new
     * table needs storage): the freed records are there again for new blocks. */
    for (i = 1; i < N; i++)
        free(p[i]);
    for (i = 1; i < made; i++)
        if ((p[i] = malloc(16)) == NULL)
            return 4;
    for (i = 0; i < made; i++)
        free(p[i]);
    memtrack_stats(&st);
    return st.current_blocks == 0 && st.errors == 0 ? 0 : 5;
}
