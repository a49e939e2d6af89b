#include <stddef.h>
void *db_malloc(size_t n);
void *db_internal_malloc(size_t n);
void db_free(void *p);
char *db_strdup(const char *s);
