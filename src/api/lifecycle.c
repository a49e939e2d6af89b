/* lifecycle.c - the process's life around the tracker: at load time the fork handlers and
 * the crash handler are installed; around fork every lock is taken, in the lock order, so
 * the child never inherits one held; at exit the report is written.
 *
 * The report runs in libmemtrack's destructor, after the program's atexit handlers and
 * static destructors (report/report.c). This file is the one place that orders the whole
 * library, so it calls up to the report layer (the exit report and its lock): nothing
 * calls into it.
 */
#include "api/api.h"
#include "api/owned.h"
#include "api/reach.h"
#include "base/data_symbols.h"
#include "base/exit_now.h"
#include "base/in_handler.h"
#include "base/mapped.h"
#include "base/code_map.h"
#include "base/memory.h"
#include "base/output.h"
#include "base/symbolize.h"
#include "checks/page_guard.h"
#include "records/place.h"
#include "records/stack.h"
#include "records/timeline.h"
#include "report/report.h"

/* Every lock of the tracker, in the order fork_prepare takes them (the lock order: a lock
 * is never taken while one after it is held); both sides of the fork release them in the
 * reverse order. One list, so the order is written once. */
static const struct {
    void (*lock)(void);
    void (*unlock)(void);
} fork_locks[] = {
    {mt_report_lock, mt_report_unlock},
    {mt_reach_roots_lock_all, mt_reach_roots_unlock_all},
    {mt_owners_lock_all, mt_owners_unlock_all},
    {mt_table_lock_all, mt_table_unlock_all},
    {mt_page_guard_lock, mt_page_guard_unlock},
    {mt_sites_lock_all, mt_sites_unlock_all},
    {mt_stacks_lock_all, mt_stacks_unlock_all},
    {mt_code_map_lock, mt_code_map_unlock},
    {mt_errors_lock_all, mt_errors_unlock_all},
    {mt_timeline_lock, mt_timeline_unlock},
    {mt_out_lock, mt_out_unlock},
    {mt_symbols_lock_all, mt_symbols_unlock_all},
    {mt_data_symbols_lock_all, mt_data_symbols_unlock_all},
    {mt_roots_lock_all, mt_roots_unlock_all},
    {mt_mapped_lock, mt_mapped_unlock},
    {mt_mem_lock_all, mt_mem_unlock_all}, /* last: the tracker allocates for itself under its
                                             other locks */
};
#define FORK_LOCKS (sizeof fork_locks / sizeof fork_locks[0])

static void fork_prepare(void)
{
    for (size_t i = 0; i < FORK_LOCKS; i++)
        fork_locks[i].lock();
}

/* After fork, in the parent; in the child too, before what only the child does. */
static void fork_release(void)
{
    for (size_t i = FORK_LOCKS; i > 0; i--)
        fork_locks[i - 1].unlock();
}

/* The process whose image started here (a fork child is not; nor a vfork child, which
 * runs no fork handler: its pid is not this one). */
static pid_t image_pid;
static bool forked;

static void fork_child(void)
{
    forked = true;
    fork_release();
    mt_out_after_fork_child(); /* one thread now: nothing else can hold a lock */
}

/* At load time: start, then install what guards the rest of the process's life. */
__attribute__((constructor(101))) static void mt_constructor(void)
{
    MT_ENTRY();
    mt_init();
    mt_busy++;
#ifdef MT_GLIBC_MALLOC
    mt_allocator_check();
#endif
    (void)pthread_atfork(fork_prepare, fork_release, fork_child);
    image_pid = getpid();
    mt_place_prepare();
    mt_crash_install();
    mt_handler_note_trampoline();
    mt_report_prepare();
    mt_busy--;
}

/* Runs after the program's atexit handlers and static destructors: see report.c. The
 * leak scan reads this thread's stack from here up (api/reach.h). */
__attribute__((destructor(101))) MT_NOINLINE static void mt_destructor(void)
{
    MT_ENTRY();
    MT_REACH_FROM_EXIT();
    mt_report_at_exit(true);
    mt_reach_leave();
}

#ifdef MT_STACKS_INTERPOSED
/* The process's _exit and _Exit: a program that ends by them (dash always does) gets its
 * report too, the stdio buffers it skips left alone, its live frames read as roots (they
 * are not stale, as at exit). Not in a fork child (fork, then _exit: its copy of the
 * parent's heap is no leak of its own), a vfork child (its memory is the parent's), a
 * nested call (this thread is inside the tracker: a signal handler interrupted it) nor
 * where a signal handler may be running (whatever it interrupted may hold a lock the
 * report takes). Weak, as the C library's own are in a static link. */
static MT_NOINLINE void report_at_quick_exit(void)
{
    /* (asked first: a vfork child runs in its parent's memory and must write none of it) */
    if (forked || getpid() != image_pid || mt_reentered())
        return;
    MT_ENTRY();
    MT_REACH_FROM_HERE();
    if (!mt_maybe_in_handler((uintptr_t)__builtin_frame_address(0)))
        mt_report_at_exit(false);
    mt_reach_leave();
}

MT_EXPORT __attribute__((weak, noreturn)) void _exit(int status)
{
    report_at_quick_exit();
    mt_exit_now(status);
}

MT_EXPORT __attribute__((weak, noreturn)) void _Exit(int status)
{
    report_at_quick_exit();
    mt_exit_now(status);
}
#endif
