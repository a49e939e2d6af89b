/* app.c - a program of the database (db.c): three leaks made from three of its lines; with
 * an argument, more functions call the database's allocator (and free what they get). */
#include <stdio.h>
#include <stdlib.h>

#include "db.h"

struct table {
    char *name;
    int *rows;
    char *cache;
};

__attribute__((noinline)) static void open_table(struct table *t, const char *name)
{
    t->name = db_strdup(name);
    t->rows = db_malloc(64 * sizeof(int));
}

__attribute__((noinline)) static void warm_cache(struct table *t)
{
    t->cache = db_malloc(4096);
    t->cache[0] = 1;
}

static void scan(int n)
{
    for (int i = 0; i < n; i++)
        db_free(db_malloc(24));
}

static void rename_all(int n)
{
    for (int i = 0; i < n; i++)
        db_free(db_strdup("renamed"));
}

static void vacuum(void)
{
    void *page = db_malloc(512);
    db_free(page);
}

int main(int argc, char **argv)
{
    static struct table t;
    open_table(&t, "users");
    warm_cache(&t);
    if (argc > 1) {
        scan(atoi(argv[1]));
        rename_all(atoi(argv[1]));
        vacuum();
    }
    printf("opened %s\n", t.name);
    t.name = NULL; /* the three blocks are lost */
    t.rows = NULL;
    t.cache = NULL;
    return 0;
}
