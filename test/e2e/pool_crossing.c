/* Pools cross between tracked code and a library built without memtrack. The library's
 * pool is untracked, even when the program allocates from it (nothing is recorded, so its
 * objects are neither leaks nor in the statistics); the program's pool stays tracked when
 * the library allocates from it (the site is the library's code address) and when the
 * library calls free() on one of its objects (reported at the program's line that asked the
 * library to free it, left alone).
 * e2e-untracked: pool_crossing-untracked.c
 * e2e-stdout
 */
#include <stdio.h>
#include <stdlib.h>

memtrack_pool_t *lib_make_pool(void);
void *lib_spawn(memtrack_pool_t *pool);
void lib_despawn(memtrack_pool_t *pool, void *object);
void lib_free(void *p);

int main(void)
{
    memtrack_stats_t before, after;
    memtrack_stats(&before);
    memtrack_pool_t *theirs = lib_make_pool();
    void *p = memtrack_pool_alloc(theirs);
    void *q = memtrack_pool_alloc(theirs);
    memtrack_pool_free(theirs, p);
    memtrack_pool_free(theirs, p); /* untracked: ignored, the pool stays sound */
    memtrack_stats(&after);
    printf("untracked pool: %zu live, %zu blocks recorded\n", memtrack_pool_live(theirs),
           after.total_blocks - before.total_blocks);
    (void)q; /* left in the library's pool: not a leak the tracker knows */

    memtrack_pool_t *ours = memtrack_pool_create("ours", 40, 4);
    void *a = lib_spawn(ours); /* tracked, at the library's address */
    void *b = memtrack_pool_alloc(ours);
    lib_despawn(ours, b);
    lib_despawn(ours, b); /* reported: the pool is tracked, whoever calls */
    lib_free(a);          /* free() of a pool object: reported, left alone */
    printf("ours: %zu live\n", memtrack_pool_live(ours));
    return 0; /* a leaks: ours is never destroyed */
}
