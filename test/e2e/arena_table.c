/* An arena behind an allocator table, as a Markdown library takes one: its members are
 * named calloc, realloc and free, so the file turns the macros off (MEMTRACK_NO_MACROS).
 * The arena it makes is tracked all the same (an arena made by name would be untracked,
 * silently): an overrun is found, and the arena, never destroyed, leaks its allocations
 * at exit, named at the program's line through the table's functions and render().
 * e2e-cflags: -DMEMTRACK_NO_MACROS -include memtrack.h
 * e2e-options: track_all=0
 */
#include <stdio.h>
#include <string.h>

typedef struct allocator {
    void *(*calloc)(void *ctx, size_t count, size_t size);
    void *(*realloc)(void *ctx, void *p, size_t old_size, size_t size);
    void (*free)(void *ctx, void *p);
    void *ctx;
} allocator_t;

static void *arena_calloc(void *ctx, size_t count, size_t size)
{
    void *p = memtrack_arena_alloc(ctx, count * size);
    if (p != NULL)
        memset(p, 0, count * size);
    return p;
}

static void *arena_realloc(void *ctx, void *p, size_t old_size, size_t size)
{
    void *q = memtrack_arena_alloc(ctx, size);
    if (q != NULL && p != NULL)
        memcpy(q, p, old_size < size ? old_size : size);
    return q;
}

static void arena_free(void *ctx, void *p)
{
    (void)ctx; /* the arena lets everything go at once */
    (void)p;
}

static char *render(const allocator_t *a, const char *text)
{
    size_t n = strlen(text);
    char *html = a->calloc(a->ctx, n + 10, 1);
    sprintf(html, "<h1>%s</h1>", text + 2);
    char *longer = a->realloc(a->ctx, html, n + 10, strlen(html) + 2); /* room for "\n" */
    a->free(a->ctx, html);
    strcat(longer, "\n");
    return longer;
}

int main(void)
{
    memtrack_arena_t *arena = memtrack_arena_create("markdown", 4096);
    allocator_t a = {arena_calloc, arena_realloc, arena_free, arena};
    char *html = render(&a, "# memtrack");
    html[strlen(html) + 1] = '!'; /* one past the end: an overrun */
    fputs(html, stderr);
    return 0; /* the arena is never destroyed */
}
