/* Every misuse of a tracked pool, each reported once with the object's sites, and the
 * program goes on: overruns and underruns (found by release, memtrack_check(), exit),
 * double release, release of another pool's object, of a pointer inside an object, of a
 * stack address, of a malloc'd block; free() and realloc() of a pool object (left alone);
 * writes after release (found when the slot is reused, by memtrack_pool_check(), at
 * destroy, at exit); a full pool returns NULL.
 * e2e-stdout
 * track_all=0: the pools and arenas alone, the same on every target (test/platforms).
 * e2e-options: track_all=0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct enemy {
    char name[12];
    int hp;
} enemy_t;

int main(void)
{
    memtrack_pool_t *enemies = memtrack_pool_create("enemies", sizeof(enemy_t), 3);
    memtrack_pool_t *bullets = memtrack_pool_create("bullets", 8, 2);
    enemy_t *a = memtrack_pool_alloc(enemies);
    enemy_t *b = memtrack_pool_alloc(enemies);
    enemy_t *c = memtrack_pool_alloc(enemies);
    if (memtrack_pool_alloc(enemies) != NULL) /* full */
        return 1;

    memset(a, 0, sizeof *a + 1); /* one byte too many */
    memtrack_pool_free(enemies, a);
    ((char *)b)[-2] = 1; /* before the start */
    int found = memtrack_check();

    memtrack_pool_free(enemies, a); /* again */
    void *shot = memtrack_pool_alloc(bullets);
    memtrack_pool_free(enemies, shot);              /* another pool's object */
    memtrack_pool_free(enemies, &c->hp);            /* inside an object */
    int local = 0;
    memtrack_pool_free(enemies, &local);            /* a stack address */
    char *text = malloc(10);
    memtrack_pool_free(enemies, text);              /* a malloc'd block */
    free(c);                                        /* the pool's, not malloc's */
    if (realloc(c, 100) != NULL)
        return 2;
    c->hp = 3; /* still a live object: nothing was released */

    a->hp = 7; /* a stale pointer: the slot was released */
    enemy_t *d = memtrack_pool_alloc(enemies); /* reuses it: the write is found */
    memtrack_pool_free(enemies, d);
    d->name[0] = 'x';
    found += memtrack_pool_check(enemies);

    memtrack_pool_free(enemies, c);
    c->name[3] = 'y'; /* found at destroy */
    memtrack_pool_free(enemies, b);
    memtrack_pool_destroy(enemies);

    memtrack_pool_free(bullets, shot);
    ((char *)shot)[0] = 1;                         /* found at exit */
    char *last = memtrack_pool_alloc(bullets);
    last[8] = 0;                                   /* an overrun found at exit */
    free(text);
    printf("found %d\n", found);
    return 0;
}
