#include "strlist.h"

counter_t *counter_new(mem_t *mem)
{
    counter_t *c = MEM_NEW(mem, counter_t);
    if (c != NULL)
        c->mem = mem;
    return c;
}

void counter_free(counter_t *c)
{
    if (c != NULL)
        MEM_RELEASE(c->mem, c);
}
