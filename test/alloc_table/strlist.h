#ifndef STRLIST_H
#define STRLIST_H
#include "mem.h"

typedef struct strlist {
    mem_t *mem;
    char **items;
    size_t count, room;
} strlist_t;

strlist_t *strlist_new(mem_t *mem);
int strlist_push(strlist_t *list, const char *s);
void strlist_free(strlist_t *list);

typedef struct counter {
    mem_t *mem;
    size_t hits;
} counter_t;

counter_t *counter_new(mem_t *mem);
void counter_free(counter_t *c);

#endif
