/* game.c - the game: bodies and contacts made and released through the engine's block
 * allocator (blocks.c), levels one after the other. Every report must name this file's
 * lines, with the calls that led there, never the allocator's. */
#include <stdio.h>
#include <string.h>

#include "blocks.h"

typedef struct body {
    float x, y, vx, vy;
    int id;
} body_t; /* 20 bytes: the 32-byte class */

typedef struct contact {
    body_t *a, *b;
} contact_t; /* 16 bytes */

static blocks_t *world;
static body_t *bodies[8];
static int nbodies;

static void add_body(float x, float y)
{
    body_t *b = blocks_allocate(world, sizeof *b);
    memset(b, 0, sizeof *b);
    b->x = x;
    b->y = y;
    b->id = nbodies;
    bodies[nbodies++] = b;
}

static void remove_body(int i)
{
    blocks_free(world, bodies[i], sizeof(body_t));
}

static contact_t *touch(int i, int j)
{
    contact_t *c = blocks_allocate(world, sizeof *c);
    c->a = bodies[i];
    c->b = bodies[j];
    printf("contact %d-%d\n", c->a->id, c->b->id);
    return c;
}

static void load_level(int n)
{
    for (int i = 0; i < n; i++)
        add_body((float)i, 0);
}

static void play_level(void)
{
    contact_t *c = touch(0, 1);
    blocks_free(world, c, sizeof *c);
    memset(bodies[0], 0, sizeof(body_t) + 4); /* into the spare bytes of its 32-byte slot */
    memset(bodies[1], 0, 40);                 /* past its slot, towards the next object */
    remove_body(2);
    remove_body(2);        /* released twice */
    bodies[2]->vx = 1;     /* written after release */
    touch(0, 3);           /* a contact never released */
}

static void unload_level(void)
{
    remove_body(0);
    remove_body(1);
    remove_body(3);
    nbodies = 0;
}

int main(void)
{
    world = blocks_create();
    load_level(4);
    play_level();
    unload_level();
    blocks_mark(world); /* the first level's end: it left a contact */
    load_level(2);
    blocks_destroy(world); /* the second level's bodies go with the world */
    return 0;
}
