/* page_guard_access.h - what a fault at a page guard was (checks/page_guard_access.c).
 */
#ifndef MT_PAGE_GUARD_ACCESS_H
#define MT_PAGE_GUARD_ACCESS_H

#include "records/table.h"

enum { ACCESS_UNKNOWN = 3, ACCESS_READ = 1, ACCESS_WRITE = 2 };

/* The faulting instruction (0 where the context is not understood), from the signal's. */
uintptr_t mt_pg_fault_pc(const void *context);
/* ACCESS_READ or ACCESS_WRITE (x86-64), else ACCESS_UNKNOWN. */
unsigned mt_pg_fault_access(const void *context);
/* The site to blame for an access by the instruction at pc. */
uint32_t mt_pg_access_site(uintptr_t pc);
/* The live record of the block at addr, marked reported; false when it cannot be had. */
bool mt_pg_live_record(uintptr_t addr, mt_block_t *out);
/* Says that page_guard_stop=1 ends the program. */
void mt_pg_print_stop(void);
/* Loads backtrace()'s unwinder now, not first in a signal handler (no lock held). */
void mt_pg_load_unwinder(void);

#endif /* MT_PAGE_GUARD_ACCESS_H */
