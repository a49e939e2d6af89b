/* Reads and writes after release of pool objects, caught at the access by their page
 * guards (page_guard=all covers pool objects): each is named at the line that made the
 * access, with the line that made the object (the game's, seen through the engine's
 * spawn and despawn, which only allocate and release) and the release's. A second
 * release is the pool's double release, and the pool still fills up as it would.
 * fault-options: page_guard=all
 */
#include <stdio.h>

typedef struct bullet {
    float x, y, vx, vy;
    int owner;
} bullet_t;

static memtrack_pool_t *bullets;

static bullet_t *bullet_spawn(void)
{
    return memtrack_pool_alloc(bullets);
}

static void bullet_despawn(bullet_t *b)
{
    memtrack_pool_free(bullets, b);
}

int main(void)
{
    bullets = memtrack_pool_create("bullets", sizeof(bullet_t), 3);
    bullet_t *shot = bullet_spawn();
    bullet_t *spare = bullet_spawn();
    shot->owner = 7;
    spare->owner = 8;
    bullet_despawn(shot);
    printf("owner %d\n", shot->owner); /* a read after release */
    bullet_despawn(spare);
    spare->vx = 1;        /* a write after release */
    bullet_despawn(spare); /* released twice */
    bullet_t *a = bullet_spawn(), *b = bullet_spawn(), *c = bullet_spawn();
    printf("full: %s\n", a && b && c && bullet_spawn() == NULL ? "yes" : "no");
    memtrack_pool_clear(bullets);
    memtrack_pool_destroy(bullets);
    return 0;
}
