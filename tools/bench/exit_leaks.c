/* exit_leaks.c - programs that leak, for the exit report's benchmark (bench-exit,
 * tools/bench/exit_report.c). Built plain, with memtrack (header mode) and with ASan.
 *
 *   exit_leaks clean|one|sites|sites-freed|many|many-freed|test
 *
 *   clean        a block made and freed: the exit of a clean process
 *   one          one block leaked at main
 *   sites        10 blocks leaked at 10 sites, each two calls below main
 *   sites-freed  the same blocks, freed: what `sites` pays before its exit
 *   many         2,500 blocks leaked from 1,000 distinct stacks (three levels of ten
 *                functions), at four sites in one node maker
 *   many-freed   the same blocks, freed
 *   test         a short test case, as a suite's: an event-based parser's test (300
 *                tokens scanned into a list, read, released), leaking 3 blocks at 3 sites
 *
 * Built with -fno-optimize-sibling-calls: every call keeps its frame, so the stacks are as
 * deep as the source says.
 */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void *volatile sink; /* keeps the compiler from dropping a block */

/* A leak: the block is seen, then no pointer to it is kept, so LeakSanitizer, which reports
 * only blocks nothing points to, reports it as memtrack does. */
static NOINLINE void lose(void *p)
{
    sink = p;
    sink = NULL;
}

/* ---- many: 1,000 stacks ------------------------------------------------------------------- */

typedef struct node {
    unsigned kind;
    char text[20];
} node_t;

/* Four sites in one function that does more than allocate (not a wrapper by the rule). */
static NOINLINE node_t *make_node(unsigned i)
{
    node_t *n;
    switch (i % 4) {
    case 0: n = malloc(sizeof *n); break;
    case 1: n = calloc(1, sizeof *n); break;
    case 2: n = malloc(sizeof *n + 8); break;
    default: n = calloc(1, sizeof *n + 16); break;
    }
    if (n != NULL) {
        n->kind = i;
        memset(n->text, 'a' + (int)(i % 26), sizeof n->text);
    }
    return n;
}

/* Three levels of ten functions: level c, then b, then a, each choosing the next by a digit
 * of i, so the 1,000 values of i % 1000 take 1,000 paths, each a distinct stack. Each
 * function marks the node with its own letter, so no two are the same code (which the
 * compiler would fold into one). */
#define LEVEL_C(k)                                                                                 \
    static NOINLINE node_t *c##k(unsigned i)                                                       \
    {                                                                                              \
        node_t *n = make_node(i);                                                                  \
        if (n != NULL)                                                                             \
            n->text[0] = (char)('A' + k);                                                          \
        return n;                                                                                  \
    }
LEVEL_C(0)
LEVEL_C(1)
LEVEL_C(2)
LEVEL_C(3)
LEVEL_C(4)
LEVEL_C(5)
LEVEL_C(6)
LEVEL_C(7)
LEVEL_C(8)
LEVEL_C(9)

#define CHOOSE(prefix, digit, i, mark, k)                                                          \
    node_t *n;                                                                                     \
    switch (digit) {                                                                               \
    case 0: n = prefix##0(i); break;                                                               \
    case 1: n = prefix##1(i); break;                                                               \
    case 2: n = prefix##2(i); break;                                                               \
    case 3: n = prefix##3(i); break;                                                               \
    case 4: n = prefix##4(i); break;                                                               \
    case 5: n = prefix##5(i); break;                                                               \
    case 6: n = prefix##6(i); break;                                                               \
    case 7: n = prefix##7(i); break;                                                               \
    case 8: n = prefix##8(i); break;                                                               \
    default: n = prefix##9(i); break;                                                              \
    }                                                                                              \
    if (n != NULL)                                                                                 \
        n->text[mark] = (char)('A' + k);                                                           \
    return n;

#define LEVEL_B(k)                                                                                 \
    static NOINLINE node_t *b##k(unsigned i)                                                       \
    {                                                                                              \
        CHOOSE(c, i % 10, i, 1, k)                                                                 \
    }
LEVEL_B(0)
LEVEL_B(1)
LEVEL_B(2)
LEVEL_B(3)
LEVEL_B(4)
LEVEL_B(5)
LEVEL_B(6)
LEVEL_B(7)
LEVEL_B(8)
LEVEL_B(9)

#define LEVEL_A(k)                                                                                 \
    static NOINLINE node_t *a##k(unsigned i)                                                       \
    {                                                                                              \
        CHOOSE(b, i / 10 % 10, i, 2, k)                                                            \
    }
LEVEL_A(0)
LEVEL_A(1)
LEVEL_A(2)
LEVEL_A(3)
LEVEL_A(4)
LEVEL_A(5)
LEVEL_A(6)
LEVEL_A(7)
LEVEL_A(8)
LEVEL_A(9)

static NOINLINE node_t *spread(unsigned i)
{
    CHOOSE(a, i / 100 % 10, i, 3, 0)
}

static int many(int keep)
{
    for (unsigned i = 0; i < 2500; i++) {
        node_t *n = spread(i);
        if (n == NULL)
            return 1;
        if (keep)
            lose(n);
        else
            free(n);
    }
    return 0;
}

/* ---- sites: 10 sites, two calls deep ----------------------------------------------------- */

static NOINLINE void *site_block(int k)
{
    switch (k) {
    case 0: return malloc(10);
    case 1: return malloc(20);
    case 2: return calloc(3, 10);
    case 3: return malloc(40);
    case 4: return strdup("fifty bytes would be too long to write out here");
    case 5: return calloc(6, 10);
    case 6: return malloc(70);
    case 7: return realloc(NULL, 80);
    case 8: return malloc(90);
    default: return calloc(10, 10);
    }
}

static NOINLINE void *load_part(int k)
{
    void *p = site_block(k);
    sink = p;
    return p;
}

static int sites(int keep)
{
    void *blocks[10];
    for (int k = 0; k < 10; k++)
        if ((blocks[k] = load_part(k)) == NULL)
            return 1;
    for (int k = 0; k < 10; k++) {
        if (keep)
            lose(blocks[k]);
        else
            free(blocks[k]);
    }
    return 0;
}

/* ---- test: a suite's short case ----------------------------------------------------------- */

/* A test of an event-based parser, as a YAML or JSON library's suite runs hundreds of:
 * the input is cut into 300 tokens, each copied into a block of a list, the list is read
 * and released, and the case forgets three blocks, at three sites, two calls down. */
typedef struct token {
    struct token *next;
    char *text;
} token_t;

static NOINLINE token_t *scan(const char *input)
{
    token_t *head = NULL, **tail = &head;
    while (*input != '\0') {
        size_t n = strcspn(input, " ");
        token_t *t = malloc(sizeof *t);
        if (t == NULL)
            break;
        t->text = strndup(input, n);
        t->next = NULL;
        *tail = t;
        tail = &t->next;
        input += n + (input[n] == ' ');
    }
    return head;
}

static NOINLINE char *describe(const token_t *t)
{
    char *s = malloc(64); /* leaked by the test case */
    if (s != NULL)
        strcpy(s, t != NULL ? t->text : "");
    return s;
}

static NOINLINE int test_case(void)
{
    static char input[300 * 9];
    unsigned x = 12345;
    for (int i = 0; i < 300; i++) {
        x = x * 1103515245u + 12345u;
        for (int k = 0; k < 8; k++)
            input[i * 9 + k] = (char)('a' + (x >> (k * 3 + 5)) % 26);
        input[i * 9 + 8] = i < 299 ? ' ' : '\0';
    }
    token_t *tokens = scan(input);
    size_t count = 0;
    for (const token_t *t = tokens; t != NULL; t = t->next)
        count += strlen(t->text) == 8;
    lose(describe(tokens));  /* three leaks, at three sites */
    lose(strdup("fixture")); /* that the case forgot */
    lose(calloc(1, sizeof(token_t)));
    while (tokens != NULL) {
        token_t *next = tokens->next;
        free(tokens->text);
        free(tokens);
        tokens = next;
    }
    return count != 300;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clean";
    if (strcmp(mode, "one") == 0) {
        void *p = malloc(10);
        lose(p);
        return p == NULL;
    }
    if (strcmp(mode, "sites") == 0 || strcmp(mode, "sites-freed") == 0)
        return sites(strcmp(mode, "sites") == 0);
    if (strcmp(mode, "many") == 0 || strcmp(mode, "many-freed") == 0)
        return many(strcmp(mode, "many") == 0);
    if (strcmp(mode, "test") == 0)
        return test_case();
    void *p = malloc(10);
    free(p);
    return p == NULL;
}
