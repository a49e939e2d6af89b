/* roots_bare.c - the roots of the leak scan on bare metal (base/roots.h says which). */
#ifdef MT_BARE_METAL
#include "base/roots.h"

bool mt_roots_collect(mt_roots_t *r, uintptr_t stack_from, void *frame,
                      mt_program_code_fn *program_code)
{
    (void)stack_from;
    (void)frame;
    (void)program_code;
    memset(r, 0, sizeof *r);
    return false;
}

void mt_roots_thread_seen(unsigned number)
{
    (void)number;
}

bool mt_memory_may_read(uintptr_t addr, size_t n)
{
    (void)addr;
    (void)n;
    return true;
}
#endif
