/* roots_bare.c - the roots of the leak scan on bare metal (base/roots.h says which): the
 * program's .data and .bss, between the linker script's symbols (CMSIS's __data_start__,
 * __data_end__, __bss_start__ and __bss_end__, or ST's _sdata, _edata, _sbss and _ebss),
 * less the tracker's own data and its static buffer (MEMTRACK_STATIC_MEMORY, which holds
 * its records), and the one stack from the entry point up to __StackTop. No unwinder works
 * on Thumb code, so the stack's frames cannot be told apart: it is read whole, but at exit,
 * where what main's frame held is dead once main returned (the exit report runs from
 * newlib's exit()), it is not read at all.
 */
#ifdef MT_BARE_METAL
#include <string.h>

#include "base/roots.h"

/* The linker script's names for the sections (weak: a script may name them otherwise). */
extern char cmsis_data_start[] __asm__("__data_start__") __attribute__((weak));
extern char cmsis_data_end[] __asm__("__data_end__") __attribute__((weak));
extern char cmsis_bss_start[] __asm__("__bss_start__") __attribute__((weak));
extern char cmsis_bss_end[] __asm__("__bss_end__") __attribute__((weak));
extern char st_data_start[] __asm__("_sdata") __attribute__((weak));
extern char st_data_end[] __asm__("_edata") __attribute__((weak));
extern char st_bss_start[] __asm__("_sbss") __attribute__((weak));
extern char st_bss_end[] __asm__("_ebss") __attribute__((weak));
extern char stack_top[] __asm__("__StackTop") __attribute__((weak));
extern unsigned char memtrack_static_memory[];
extern const size_t memtrack_static_memory_size;

static bool add_section(mt_roots_t *r, const char *start, const char *end, const mt_span_t *own,
                        size_t nown)
{
    if (start == NULL || end == NULL || end <= start)
        return true;
    return mt_roots_add(r, (uintptr_t)start, (uintptr_t)end, MT_ROOT_DATA, 0, own, nown);
}

bool mt_roots_collect(mt_roots_t *r, uintptr_t stack_from, void *frame, bool at_exit)
{
    (void)frame;
    memset(r, 0, sizeof *r);
    mt_span_t own[MT_OWN_SPANS_MAX + 1];
    size_t nown = mt_own_data_spans(own);
    own[nown++] = (mt_span_t){(uintptr_t)memtrack_static_memory,
                              (uintptr_t)memtrack_static_memory + memtrack_static_memory_size};
    bool ok = add_section(r, cmsis_data_start, cmsis_data_end, own, nown) &&
              add_section(r, cmsis_bss_start, cmsis_bss_end, own, nown) &&
              add_section(r, st_data_start, st_data_end, own, nown) &&
              add_section(r, st_bss_start, st_bss_end, own, nown);
    if (ok && !at_exit && stack_top != NULL && stack_from < (uintptr_t)stack_top)
        ok = mt_roots_add(r, stack_from, (uintptr_t)stack_top, MT_ROOT_STACK, 1, NULL, 0);
    if (!ok)
        mt_roots_free(r);
    return ok;
}

void mt_roots_thread_seen(unsigned number)
{
    (void)number; /* one thread */
}

/* ARMv7-M's memory map: code and SRAM below 0x40000000 and external RAM from 0x60000000 to
 * 0xA0000000 read as memory; peripherals, external devices and the system region are
 * device memory, which a read may change. */
void mt_roots_lock_all(void)
{
}

void mt_roots_unlock_all(void)
{
}

bool mt_memory_may_read(uintptr_t addr, size_t n)
{
    uintptr_t end = addr + n;
    if (end < addr)
        return false;
    return end <= 0x40000000u || (addr >= 0x60000000u && end <= 0xA0000000u);
}
#endif /* MT_BARE_METAL */
