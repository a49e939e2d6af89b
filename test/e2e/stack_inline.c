/* The program for stack_inline.sh: it calls a library whose allocating helpers were
 * inlined (stack_inline-untracked.c), keeps every node and event, and frees the nodes'
 * texts. */
#include <stdlib.h>

typedef struct node {
    int kind;
    char *text;
} node_t;

node_t *parse_scalar(const char *text);
node_t *parse_key(const char *text);
node_t *parse_alias(const char *text);
void *event_new(void);
void *token_new(void);
void *buffer_new(void);

static void load_document(void)
{
    node_t *nodes[3] = {parse_scalar("a"), parse_key("b"), parse_alias("c")};
    for (int i = 0; i < 3; i++)
        free(nodes[i]->text);
}

static void load_stream(void)
{
    (void)event_new();
    (void)token_new();
    (void)buffer_new();
}

int main(void)
{
    load_document();
    load_stream();
    return 0;
}
