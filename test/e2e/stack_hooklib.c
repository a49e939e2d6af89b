/* A library's own test, the library built without memtrack (stack_hooklib-untracked.c):
 * every block it makes comes through its hook table and one allocation function, which the
 * report sees through (a wrapper: small, it allocates only there and returns the block), as
 * it sees through the library's constructors and printer that only return what they made.
 * Each leak is headlined at the test's line that asked for it; what the test deletes is not
 * a leak.
 * e2e-untracked: stack_hooklib-untracked.c
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct doc_node doc_node_t;
doc_node_t *doc_new_object(void);
doc_node_t *doc_new_number(double value);
doc_node_t *doc_new_string(const char *text);
char *doc_print(const doc_node_t *node);
void doc_add(doc_node_t *parent, doc_node_t *child);
void doc_delete(doc_node_t *node);

static void test_delete_all(void)
{
    doc_node_t *root = doc_new_object();
    doc_add(root, doc_new_string("kept"));
    doc_add(root, doc_new_number(1));
    doc_delete(root);
}

static void test_print_leaks(void)
{
    doc_node_t *name = doc_new_string("leaky");
    char *printed = doc_print(name); /* never freed */
    puts(printed);
    doc_delete(name);
}

static void test_orphan(void)
{
    doc_node_t *root = doc_new_object();
    doc_add(root, doc_new_number(2));
    (void)doc_new_number(3); /* never added, never deleted */
    doc_delete(root);
}

int main(void)
{
    char *header = malloc(8); /* the program's own block (it links libmemtrack) */
    free(header);
    test_delete_all();
    test_print_leaks();
    test_orphan();
    return 0;
}
