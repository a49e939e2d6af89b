/* roots_windows.c - the roots of the leak scan on Windows (base/roots.h says which). */
#ifdef _WIN32
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
