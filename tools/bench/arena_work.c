/* arena_work.c - an arena-heavy workload, as a Markdown parser's: each document's text is
 * read line by line into a tree of nodes allocated from a bump arena (a block per line, an
 * inline per span of text between emphasis or code markers: about a node per 30 bytes),
 * and the arena is reset after each document. Prints ns per allocation, the parse's work included
 * (make bench-pools, through tools/bench/arena_work.sh, builds it three ways):
 *
 *   plain    its own bump arena, as the library ships it
 *   asan     the same under -fsanitize=address (which sees the arena's chunk only)
 *   tracked  memtrack's tracked arena in its place (-DTRACKED, built with the macros)
 *
 *   arena_work [--quick]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAPACITY (1 << 20)

#ifdef TRACKED
typedef memtrack_arena_t arena_t;
#define ARENA_NEW() memtrack_arena_create("parse", CAPACITY)
#define ARENA_ALLOC(a, n) memtrack_arena_alloc((a), (n))
#define ARENA_RESET(a) memtrack_arena_reset(a)
#define ARENA_END(a) memtrack_arena_destroy(a)
#else
typedef struct arena {
    unsigned char *base;
    size_t top;
} arena_t;
static arena_t *arena_new(void)
{
    arena_t *a = malloc(sizeof *a);
    if (a == NULL || (a->base = malloc(CAPACITY)) == NULL)
        exit(1);
    a->top = 0;
    return a;
}
static void *arena_alloc(arena_t *a, size_t n)
{
    size_t at = (a->top + 15) & ~(size_t)15;
    if (at + n > CAPACITY)
        return NULL;
    a->top = at + n;
    return a->base + at;
}
#define ARENA_NEW() arena_new()
#define ARENA_ALLOC(a, n) arena_alloc((a), (n))
#define ARENA_RESET(a) ((a)->top = 0)
#define ARENA_END(a) (free((a)->base), free(a))
#endif

typedef struct node {
    struct node *next;
    uint32_t kind, len;
    char text[]; /* the line's text, its inline markers taken out */
} node_t;

static size_t allocations;

/* A document: lines of 8 to 240 characters of words and inline markers. */
static char *make_document(size_t lines, size_t *size)
{
    char *doc = malloc(lines * 242 + 1);
    if (doc == NULL)
        exit(1);
    uint32_t seed = 12345;
    size_t at = 0;
    for (size_t i = 0; i < lines; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = 8 + (seed >> 16) % 233;
        for (size_t k = 0; k < len; k++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 16) % 64;
            doc[at++] = r < 5 ? ' ' : r == 5 ? '*' : r == 6 ? '`' : (char)('a' + r % 26);
        }
        doc[at++] = '\n';
    }
    *size = at;
    return doc;
}

/* A node of `len` bytes of text from the arena. */
static node_t *node_new(arena_t *arena, uint32_t kind, const char *text, size_t len)
{
    node_t *n = ARENA_ALLOC(arena, sizeof *n + len + 1);
    if (n == NULL)
        exit(1);
    memcpy(n->text, text, len);
    n->text[len] = '\0';
    n->kind = kind;
    n->len = (uint32_t)len;
    return n;
}

/* One parse: a block node per line and an inline node per span between markers (about
 * one node per 30 bytes of text, as a Markdown parser's tree); returns a checksum. */
static uint64_t parse(arena_t *arena, const char *doc, size_t size)
{
    uint64_t sum = 0;
    node_t *head = NULL;
    size_t nodes = 0;
    for (const char *p = doc, *end = doc + size; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        node_t *block = node_new(arena, 0, "", 0);
        block->next = head;
        head = block;
        nodes++;
        for (const char *span = p, *q = p; q <= nl; q++) {
            if (q < nl && *q != '*' && *q != '`')
                continue;
            node_t *n = node_new(arena, q < nl ? (uint32_t)*q : 1, span, (size_t)(q - span));
            n->next = head;
            head = n;
            nodes++;
            span = q + 1;
        }
        p = nl + 1;
    }
    for (node_t *n = head; n != NULL; n = n->next) /* a renderer's walk */
        sum += n->kind + n->len + (unsigned char)n->text[0];
    allocations += nodes;
    return sum;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    size_t lines = 2000, size, rounds = quick ? 200 : 1000;
    char *doc = make_document(lines, &size);
    arena_t *arena = ARENA_NEW();
    uint64_t sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t r = 0; r < rounds; r++) {
        sum += parse(arena, doc, size);
        ARENA_RESET(arena);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    printf("ns_per_allocation=%.2f checksum=%llu\n", ns / (double)allocations,
           (unsigned long long)sum);
    ARENA_END(arena);
    free(doc);
    return 0;
}
