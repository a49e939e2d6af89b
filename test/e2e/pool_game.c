/* A small game: bullets and sparks come from pools, spawned and despawned every frame;
 * each level is loaded into an arena (with a scratch buffer taken back by mark and
 * rewind) and unloaded with one reset. What the game gets wrong, the report names by
 * site: bullets still flying when their pool is destroyed (reported then), the pickups
 * pool never destroyed and the HUD's arena never destroyed (reported at exit). Level data
 * released by reset or destroy is not a leak. Statistics count pool objects and arena
 * allocations with the malloc'd blocks: stdout shows them.
 * e2e-stdout
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bullet {
    float x, y, vx, vy;
    int ttl;
} bullet_t;

typedef struct tile {
    unsigned char kind, height;
} tile_t;

typedef struct level {
    char *name;
    tile_t *tiles;
    int width, height;
} level_t;

static memtrack_pool_t *bullets, *sparks, *pickups;
static memtrack_arena_t *level_memory, *hud_memory;
static level_t *level;

static void load_level(int number)
{
    char name[32];
    level = memtrack_arena_alloc(level_memory, sizeof *level);
    level->width = 40 + number * 8;
    level->height = 30;
    snprintf(name, sizeof name, "level %d", number);
    level->name = memtrack_arena_alloc(level_memory, strlen(name) + 1);
    strcpy(level->name, name);
    /* Decoding needs a scratch buffer only while loading: take it back with a rewind. */
    size_t mark = memtrack_arena_mark(level_memory);
    char *scratch = memtrack_arena_alloc(level_memory, 4096);
    memset(scratch, 0, 4096);
    memtrack_arena_rewind(level_memory, mark);
    size_t count = (size_t)(level->width * level->height);
    level->tiles = memtrack_arena_alloc(level_memory, count * sizeof *level->tiles);
    for (size_t i = 0; i < count; i++)
        level->tiles[i].kind = (unsigned char)(i % 7);
}

static void unload_level(void)
{
    memtrack_arena_reset(level_memory); /* everything at once: not leaks */
    level = NULL;
}

static bullet_t *fire(int frame)
{
    bullet_t *b = memtrack_pool_alloc(bullets);
    if (b != NULL) {
        b->x = (float)frame;
        b->y = 0;
        b->vx = 1;
        b->vy = 0;
        b->ttl = 5 + frame % 4;
    }
    return b;
}

static void explode(int frame)
{
    for (int i = 0; i < 3; i++) {
        bullet_t *s = memtrack_pool_alloc(sparks);
        if (s != NULL)
            s->ttl = 2 + (frame + i) % 3;
    }
}

/* One frame of a pool's objects: move them, despawn those whose time is up. */
static void update_one(void *object, void *ctx)
{
    bullet_t *b = object;
    memtrack_pool_t *pool = ctx;
    b->x += b->vx;
    if (--b->ttl == 0)
        memtrack_pool_free(pool, b); /* releasing the visited object is allowed */
}

static void play(int frames)
{
    for (int frame = 0; frame < frames; frame++) {
        fire(frame);
        if (frame % 10 == 0)
            explode(frame);
        memtrack_pool_foreach(bullets, update_one, bullets);
        memtrack_pool_foreach(sparks, update_one, sparks);
    }
}

static void count_one(void *object, void *ctx)
{
    (void)object;
    ++*(size_t *)ctx;
}

int main(void)
{
    bullets = memtrack_pool_create("bullets", sizeof(bullet_t), 16);
    sparks = memtrack_pool_create("sparks", sizeof(bullet_t), 8);
    memtrack_pool_set_growth(sparks, 8, 64);
    pickups = memtrack_pool_create("pickups", 48, 4);
    level_memory = memtrack_arena_create("level", 64 * 1024);
    hud_memory = memtrack_arena_create("hud", 4096);

    char *title = memtrack_arena_alloc(hud_memory, 32);
    strcpy(title, "score: 0");
    int *score = memtrack_arena_alloc(hud_memory, sizeof *score);
    *score = 0;

    for (int n = 1; n <= 3; n++) {
        load_level(n);
        memtrack_pool_alloc(pickups);
        play(50 + n);
        printf("%s: %zu bullets, %zu sparks live, arena %zu of %zu bytes used\n", level->name,
               memtrack_pool_live(bullets), memtrack_pool_live(sparks),
               memtrack_arena_used(level_memory), memtrack_arena_capacity(level_memory));
        unload_level();
    }
    /* A burst of sparks: the sparks pool grows by chunks of 8. */
    for (int i = 0; i < 10; i++)
        explode(i);
    size_t visited = 0;
    memtrack_pool_foreach(sparks, count_one, &visited);
    printf("sparks: %zu live, %zu visited, capacity %zu\n", memtrack_pool_live(sparks),
           visited, memtrack_pool_capacity(sparks));
    memtrack_pool_clear(sparks); /* all at once: not leaks */

    memtrack_stats_t st;
    memtrack_stats(&st);
    printf("stats: %zu live blocks (%zu bytes), %zu allocations, %zu releases\n",
           st.current_blocks, st.current_bytes, st.total_blocks, st.frees);

    memtrack_pool_destroy(bullets); /* with bullets still flying: reported now */
    memtrack_pool_destroy(sparks);
    memtrack_arena_destroy(level_memory);
    /* pickups and hud_memory are never destroyed: their live objects leak. */
    return 0;
}
