/* A crash that follows a pointer read from a pool object after its release: a tracked
 * pool fills a released slot with 0xdd (not page-guarded here), so the pointer read
 * from it is memtrack's fill and following it crashes. The crash report says so.
 * fault-options: page_guard_rate=0
 * fault-exit: 139
 * fault-abort: no
 */
#include <stddef.h>

typedef struct entity {
    float x, y;
    struct entity *target;
    int health;
} entity_t;

int main(void)
{
    memtrack_pool_t *entities = memtrack_pool_create("entities", sizeof(entity_t), 8);
    entity_t *hero = memtrack_pool_alloc(entities);
    entity_t *monster = memtrack_pool_alloc(entities);
    monster->health = 10;
    monster->target = hero;
    memtrack_pool_free(entities, monster); /* released, but still pointed at */
    return monster->target->health;       /* a pointer read from the released object */
}
