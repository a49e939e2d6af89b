/* A parser library in the manner of libyaml, built without memtrack and optimized: its
 * helpers are inlined into their callers (stack_inline.sh builds it with -O2). new_node
 * makes a node and a copy of its text, so it is no allocation wrapper: its line is shown,
 * inlined into each parser. lib_malloc does nothing but allocate: a wrapper, seen through
 * to the functions it was inlined into. */
#include <stdlib.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

typedef struct node {
    int kind;
    char *text;
} node_t;

INLINE node_t *new_node(int kind, const char *text)
{
    node_t *node = malloc(sizeof *node);
    node->kind = kind;
    node->text = strdup(text);
    return node;
}

INLINE void *lib_malloc(size_t size)
{
    return malloc(size);
}

node_t *parse_scalar(const char *text);
node_t *parse_key(const char *text);
node_t *parse_alias(const char *text);
void *event_new(void);
void *token_new(void);
void *buffer_new(void);

node_t *parse_scalar(const char *text)
{
    node_t *node = new_node(1, text);
    node->kind |= 0x10;
    return node;
}

node_t *parse_key(const char *text)
{
    node_t *node = new_node(2, text);
    node->kind |= 0x20;
    return node;
}

node_t *parse_alias(const char *text)
{
    node_t *node = new_node(3, text);
    node->kind |= 0x40;
    return node;
}

void *event_new(void)
{
    int *event = lib_malloc(40);
    event[0] = 1;
    return event;
}

void *token_new(void)
{
    int *token = lib_malloc(24);
    token[0] = 2;
    return token;
}

void *buffer_new(void)
{
    int *buffer = lib_malloc(8);
    buffer[0] = 3;
    return buffer;
}
