/* The library's own tests: lists and counters through the default table and a counting one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strlist.h"

static size_t live;
static void *counting_calloc(size_t count, size_t size)
{
    live++;
    return calloc(count, size);
}
static void *counting_realloc(void *p, size_t size)
{
    live += p == NULL;
    return realloc(p, size);
}
static void counting_free(void *p)
{
    live -= p != NULL;
    free(p);
}

static int check(int ok, const char *what)
{
    if (!ok)
        printf("FAIL: %s\n", what);
    return !ok;
}

int main(void)
{
    mem_t counting = {counting_calloc, counting_realloc, counting_free};
    mem_t *tables[] = {&default_mem, &counting};
    int failed = 0;
    for (int t = 0; t < 2; t++) {
        strlist_t *list = strlist_new(tables[t]);
        failed += check(list != NULL, "strlist_new");
        for (int i = 0; i < 10; i++)
            failed += check(strlist_push(list, i % 2 ? "odd" : "even") == 0, "strlist_push");
        failed += check(list->count == 10 && strcmp(list->items[3], "odd") == 0, "contents");
        counter_t *c = counter_new(tables[t]);
        failed += check(c != NULL && c->hits == 0, "counter_new");
        counter_free(c);
        strlist_free(list);
    }
    failed += check(live == 0, "every block given back");
    puts(failed ? "tests failed" : "all tests passed");
    return failed != 0;
}
