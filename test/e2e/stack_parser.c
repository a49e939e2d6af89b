/* A recursive-descent parser whose input nests 12 levels deep: the names it reads go through
 * a small symbol table that drops one when it is full, so one leak is made 12 levels down.
 * With the default options its stack reaches main, every parser frame on the way (stack
 * counts the program's frames after the allocation wrapper, xstrdup, which it sees through).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s)
{
    char *copy = strdup(s);
    if (copy == NULL)
        abort();
    return copy;
}

static char *names[11];
static int nnames;

/* Keeps a copy of the name; when the table is full the copy is lost (the leak). */
static void remember(const char *name)
{
    char *copy = xstrdup(name);
    if (nnames < 11)
        names[nnames++] = copy;
}

static const char *in;
static int parse_value(void);

static int parse_list(void)
{
    int count = 0;
    in++; /* ( */
    while (*in != ')')
        count += parse_value();
    in++; /* ) */
    return count;
}

static int parse_atom(void)
{
    char name[16];
    size_t n = strspn(in, "abcdefghijklmnopqrstuvwxyz");
    memcpy(name, in, n);
    name[n] = '\0';
    in += n;
    remember(name);
    return 1;
}

static int parse_value(void)
{
    return *in == '(' ? parse_list() : parse_atom();
}

int main(void)
{
    in = "(a(b(c(d(e(f(g(h(i(j(k(l)))))))))))))";
    int atoms = parse_value();
    printf("%d atoms\n", atoms);
    for (int i = 0; i < nnames; i++)
        free(names[i]);
    return 0;
}
