/* list.h - the paper's "traditional" tracker, the baseline of the churn benchmark. */
#ifndef BENCH_LIST_H
#define BENCH_LIST_H

#include <stddef.h>

void *list_malloc(size_t size);
void list_free(void *ptr);
/* Releases every block at once (teardown: freeing one by one would walk the list each time). */
void list_free_all(void);
/* Records visited by list_free so far (the paper's cost measure). */
unsigned long long list_visits(void);

#endif
