/* page_guard_access.c - what a fault at a page guard was: the instruction that made the
 * access and whether it read or wrote (from the signal's context), the place to blame (the
 * program's line, or the caller of the C library function that faulted), the block's
 * record. checks/page_guard.c owns the slots and decides what the fault means.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <ucontext.h>
#if defined(__GLIBC__) /* (known once a C library header is read) */
#include <execinfo.h>  /* backtrace(): the caller of a C library function that faulted */
#define MT_HAVE_BACKTRACE 1
#endif

#include "base/output.h"
#include "checks/page_guard_access.h"
#include "records/place.h"
#include "records/site.h"
#include "records/table.h"

/* The fault handler walks the stack with backtrace(), whose first call loads the unwinder
 * (dlopen, which allocates and frees): done at the first page-guarded block, with no lock
 * held, not in a signal handler. */
void mt_pg_load_unwinder(void)
{
#ifdef MT_HAVE_BACKTRACE
    static atomic_bool loaded;
    if (!atomic_load_explicit(&loaded, memory_order_relaxed) && !atomic_exchange(&loaded, true)) {
        void *frames[2];
        mt_busy++; /* the loader's blocks are the tracker's doing, not the program's */
        (void)backtrace(frames, 2);
        mt_busy--;
    }
#endif
}

/* The faulting instruction and whether it read or wrote, from the signal's context. */
uintptr_t mt_pg_fault_pc(const void *context)
{
    const ucontext_t *uc = context;
#if defined(__x86_64__) && defined(REG_RIP)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0; /* the report names no line */
#endif
}

unsigned mt_pg_fault_access(const void *context)
{
#if defined(__x86_64__) && defined(REG_ERR)
    const ucontext_t *uc = context;
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0 ? ACCESS_WRITE : ACCESS_READ;
#else
    (void)context;
    return ACCESS_UNKNOWN;
#endif
}

/* The place that made the access: the faulting instruction when it is the program's, else
 * the first caller outside the system's libraries (strncpy's caller, not strncpy). */
uint32_t mt_pg_access_site(uintptr_t pc)
{
    if (pc == 0)
        return mt_site_id(NULL, 0, NULL, MT_KIND_PAGE_GUARD, NULL);
    /* pc + 1: sites by address are return addresses, looked up one byte before. */
    uint32_t first = mt_site_pc((void *)(pc + 1), MT_KIND_PAGE_GUARD);
    mt_place_t p;
    if (!mt_place_of(first, &p))
        return first;
#ifdef MT_HAVE_BACKTRACE
    void *frames[64];
    int n = backtrace(frames, 64), i = 0;
    while (i < n && (uintptr_t)frames[i] != pc)
        i++;
    for (i++; i < n; i++) {
        uint32_t id = mt_site_pc(frames[i], MT_KIND_PAGE_GUARD);
        if (!mt_place_of(id, &p))
            return id;
    }
#endif
    return first; /* (without backtrace(): the C library's function itself) */
}

/* The live record of the block at addr, when its shard's lock can be had; it is marked
 * as reported, so the guard check at its free does not tell the same damage again. */
bool mt_pg_live_record(uintptr_t addr, mt_block_t *out)
{
    mt_shard_t *sh = mt_shard_of(addr);
    for (int tries = 0; tries < 1000; tries++) {
        if (!mt_trylock(&sh->lock))
            continue;
        mt_block_t *b = mt_table_find_locked(sh, addr);
        if (b != NULL) {
            b->meta |= MT_META_FLAG_REPORTED;
            *out = *b;
        }
        mt_unlock(&sh->lock);
        return b != NULL;
    }
    return false;
}

void mt_pg_print_stop(void)
{
    mt_buf_t b;
    mt_buf_init(&b, mt_out_fd());
    mt_buf_line(&b);
    mt_buf_str(&b, "page_guard_stop=1: the program ends at the fault\n");
    mt_out_lock();
    mt_buf_flush(&b);
    mt_out_unlock();
}
