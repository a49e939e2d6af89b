/* init.c - the process lifecycle: start (options, fork handlers, the crash handler), the
 * layout frozen at the first block, fork, and the exit-time report.
 *
 * The report runs in libmemtrack's destructor, after the program's atexit handlers and
 * static destructors (report/report.c). Three calls here reach up to the report layer
 * (the exit report and its lock around fork): the lifecycle is the one place that
 * orders the whole library.
 */
#define _GNU_SOURCE
#include <unistd.h>

#include "api/api.h"
#include "api/owned.h"
#include "base/memory.h"
#include "base/output.h"
#include "base/symbolize.h"
#include "records/timeline.h"
#include "report/report.h"

atomic_int mt_state;

/* ---- lifecycle ----------------------------------------------------------------------- */

static void fork_prepare(void)
{
    mt_report_lock();
    mt_owners_lock_all();
    mt_table_lock_all();
    mt_sites_lock_all();
    mt_errors_lock_all();
    mt_timeline_lock();
    mt_out_lock();
    mt_symbols_lock_all();
    mt_mem_lock_all(); /* last: the tracker allocates for itself under its other locks */
}

static void fork_parent(void)
{
    mt_mem_unlock_all();
    mt_symbols_unlock_all();
    mt_out_unlock();
    mt_timeline_unlock();
    mt_errors_unlock_all();
    mt_sites_unlock_all();
    mt_table_unlock_all();
    mt_owners_unlock_all();
    mt_report_unlock();
}

static void fork_child(void)
{
    mt_mem_unlock_all();
    mt_symbols_unlock_all();
    mt_out_unlock();
    mt_out_after_fork_child();
    mt_timeline_unlock();
    mt_errors_unlock_all();
    mt_sites_unlock_all();
    mt_table_unlock_all();
    mt_owners_unlock_all();
    mt_report_unlock();
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_once_fn(void)
{
    mt_busy++;
    mt_options_init();
    (void)pthread_atfork(fork_prepare, fork_parent, fork_child);
    (void)mt_libc_usable_size(NULL); /* resolve it now, not inside a lock */
    mt_crash_install();
    if (mt_opt.verbose) {
        mt_buf_t b;
        mt_buf_init(&b, mt_out_fd());
        mt_buf_line(&b);
        mt_buf_str(&b, "tracking ");
        mt_buf_str(&b, mt_program_name());
        mt_buf_str(&b, " (pid ");
        mt_buf_u64(&b, (uint64_t)getpid());
        mt_buf_str(&b, "), guard ");
        mt_buf_u64(&b, mt_opt.guard);
        mt_buf_str(&b, " bytes\n");
        mt_buf_flush(&b);
    }
    mt_busy--;
    atomic_store(&mt_state, 1);
}

void mt_init(void)
{
    if (MT_LIKELY(atomic_load_explicit(&mt_state, memory_order_acquire) != 0))
        return;
    pthread_once(&init_once, init_once_fn);
}

__attribute__((constructor(101))) static void mt_constructor(void)
{
    mt_init();
}

/* Runs after the program's atexit handlers and static destructors: see report.c. */
__attribute__((destructor(101))) static void mt_destructor(void)
{
    mt_report_at_exit();
}

void mt_freeze_layout_slow(void)
{
    mt_init();
    mt_layout_freeze();
}

size_t mt_guard_size(void)
{
    mt_freeze_layout();
    return mt_guard_bytes;
}
