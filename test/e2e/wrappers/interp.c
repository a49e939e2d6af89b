/* interp.c - an interpreter's allocation, in the manner of Lua's: every block comes from the
 * allocator function its state was made with, l_alloc, which frees or resizes (at -O2 its
 * realloc is a jump: its frame is not on the stack). The interpreter's functions call it
 * through the state; the state is never closed, so their three objects leak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct object {
    struct object *next;
    int type;
    char data[];
} object_t;

typedef struct state {
    alloc_fn frealloc;
    void *ud;
    object_t *objects;
    object_t *stack[16];
    int top;
} state_t;

static void *l_alloc(void *ud, void *p, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, nsize);
}

static void link_object(state_t *L, object_t *o, int type)
{
    o->type = type;
    o->next = L->objects;
    L->objects = o;
    L->stack[L->top++ % 16] = o;
}

__attribute__((noinline)) static void new_string(state_t *L, const char *s)
{
    size_t n = strlen(s) + 1;
    object_t *o = L->frealloc(L->ud, NULL, 0, sizeof *o + n);
    memcpy(o->data, s, n);
    link_object(L, o, 1);
}

__attribute__((noinline)) static void new_table(state_t *L, int slots)
{
    object_t *o = L->frealloc(L->ud, NULL, 0, sizeof *o + (size_t)slots * sizeof(void *));
    memset(o->data, 0, (size_t)slots * sizeof(void *));
    link_object(L, o, 2);
}

__attribute__((noinline)) static void new_closure(state_t *L)
{
    object_t *o = L->frealloc(L->ud, NULL, 0, sizeof *o + 32);
    memset(o->data, 0, 32);
    link_object(L, o, 3);
}

static void drop_scratch(state_t *L)
{
    void *scratch = L->frealloc(L->ud, NULL, 0, 100);
    scratch = L->frealloc(L->ud, scratch, 100, 200);
    L->frealloc(L->ud, scratch, 200, 0);
}

int main(void)
{
    static state_t L = {l_alloc, NULL, NULL, {NULL}, 0};
    new_string(&L, "hello");
    new_table(&L, 4);
    new_closure(&L);
    drop_scratch(&L);
    printf("%d objects\n", L.top);
    return 0;
}
