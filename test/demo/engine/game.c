/* game.c - game code over the engine's allocators, with three bugs for the report. */
#include "engine.h"
#include <string.h>

int main(void)
{
    bullet_t *volley[4];
    engine_start();
    char *title = level_alloc(8);
    strcpy(title, "E1M1 boss"); /* 10 bytes into 8 */
    for (int i = 0; i < 4; i++)
        volley[i] = bullet_spawn();
    bullet_despawn(volley[0]);
    bullet_despawn(volley[0]); /* released twice */
    level_end();
    engine_stop(); /* three bullets never despawned */
    return 0;
}
