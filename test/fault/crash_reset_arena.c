/* A crash that follows a pointer read from an arena allocation after the arena's reset:
 * the reset fills the released bytes with 0xdd, so the pointer read there is memtrack's
 * fill, and following it to a field crashes. The crash report says so, offset and all.
 * fault-options: page_guard_rate=0
 * fault-exit: 139
 * fault-abort: no
 */
#include <stddef.h>

struct texture {
    int width, height;
    const char *name;
};

struct sprite {
    struct texture *texture;
    float x, y;
};

static int sprite_width(const struct sprite *s)
{
    return s->texture->height; /* offset 4 from the pointer read */
}

int main(void)
{
    memtrack_arena_t *level = memtrack_arena_create("level", 1 << 16);
    struct sprite *boss = memtrack_arena_alloc(level, sizeof *boss);
    boss->texture = memtrack_arena_alloc(level, sizeof *boss->texture);
    boss->texture->height = 64;
    memtrack_arena_reset(level); /* the level ends; boss still points into it */
    return sprite_width(boss);
}
