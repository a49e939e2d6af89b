/* A small document library in the manner of cJSON or jansson, built without memtrack: all
 * of its memory comes through a hook table that holds the process's malloc and free as
 * values, reached through one allocation function. */
#include <stdlib.h>
#include <string.h>

typedef struct doc_hooks {
    void *(*alloc)(size_t);
    void (*release)(void *);
} doc_hooks_t;

static doc_hooks_t hooks = {malloc, free};

typedef struct doc_node {
    struct doc_node *next, *child;
    char *text;
    double number;
} doc_node_t;

static void *doc_alloc(size_t size)
{
    return hooks.alloc(size);
}

doc_node_t *doc_new_object(void)
{
    doc_node_t *node = doc_alloc(sizeof *node);
    memset(node, 0, sizeof *node);
    return node;
}

doc_node_t *doc_new_number(double value)
{
    doc_node_t *node = doc_new_object();
    node->number = value;
    return node;
}

doc_node_t *doc_new_string(const char *text)
{
    doc_node_t *node = doc_new_object();
    size_t n = strlen(text) + 1;
    node->text = doc_alloc(n);
    memcpy(node->text, text, n);
    return node;
}

char *doc_print(const doc_node_t *node)
{
    char *out = doc_alloc(32);
    strcpy(out, node->text != NULL ? node->text : "{}");
    return out;
}

void doc_add(doc_node_t *parent, doc_node_t *child)
{
    child->next = parent->child;
    parent->child = child;
}

void doc_delete(doc_node_t *node)
{
    while (node != NULL) {
        doc_node_t *next = node->next;
        doc_delete(node->child);
        hooks.release(node->text);
        hooks.release(node);
        node = next;
    }
}
