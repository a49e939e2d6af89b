/* crash.c - the report on a fatal signal: a crash caused by heap corruption still gets
 * told what was corrupted and what was live.
 *
 * At start (option crash_report, on by default) handlers for SIGSEGV, SIGBUS and SIGABRT
 * are installed, on an alternate stack for the thread that starts the tracker. The handler
 * checks every live block's guards and every quarantined block's fill, prints what it
 * finds and the live blocks by site, then hands the signal on as if memtrack had not been
 * there: to the handler installed before it, or to the default action (core dump). A
 * fault is handed on by returning (the faulting instruction runs again); a sent signal
 * (abort(), kill) by raising it again, delivered as soon as the handler returns.
 *
 * Everything it calls is async-signal-safe or made so in crash mode (mt_in_crash): locks
 * are only tried (a shard some thread holds is skipped and counted), output goes straight
 * to write(2), nothing is allocated (the report's scratch memory is mmapped), and no
 * symbol is looked up. A handler the program installs later replaces this one.
 *
 * Windows has no such signals: there the platform layer (base/platform_windows.c) calls
 * mt_crash_report_now from its filter for exceptions no handler of the program took, and
 * from the C runtime's SIGABRT handler, and the system then ends the program as it would
 * have without memtrack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "base/output.h"
#include "checks/page_guard.h"
#include "report/report.h"

#ifndef _WIN32
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGABRT};
static const char *const crash_signal_names[] = {"SIGSEGV", "SIGBUS", "SIGABRT"};
#define CRASH_SIGNALS (sizeof crash_signals / sizeof crash_signals[0])

static struct sigaction previous[CRASH_SIGNALS];
#endif
static atomic_bool installed;
static atomic_int reporting; /* a thread is printing the crash report */
static uint32_t crash_site;

/* A fault at a page guard is reported from the handler, symbolized there: opening libdw and
 * reading a line table takes about 150 KiB of stack. Pages never touched cost nothing. */
#define ALT_STACK_SIZE (1024u * 1024u)

#ifndef _WIN32
/* Puts back what was there before us and lets it have the signal. */
static void hand_on(unsigned i, const siginfo_t *info)
{
    int sig = crash_signals[i];
    sigaction(sig, &previous[i], NULL);
    /* A fault happens again when the handler returns; a sent signal must be sent again. */
    bool fault = info != NULL && info->si_code > 0 && sig != SIGABRT;
    if (!fault)
        raise(sig); /* blocked while we run: delivered when we return */
}

#endif

/* "CRASH: SIGSEGV at address 0x10 in prog (pid 7); ...": what, and the address when the
 * crash was an access to memory (has_address). */
static void print_header(int fd, const char *what, bool has_address, uintptr_t address)
{
    mt_buf_t b;
    mt_buf_init(&b, fd);
    mt_buf_line(&b);
    mt_buf_str(&b, "CRASH: ");
    mt_buf_str(&b, what);
    if (has_address) {
        mt_buf_str(&b, " at address ");
        mt_buf_hex(&b, (uint64_t)address);
    }
    mt_buf_str(&b, " in ");
    mt_buf_program(&b, mt_program_name(), mt_process_id());
    mt_buf_str(&b, "; the heap as the crash left it:\n");
    mt_buf_flush(&b);
}

static void print_live_blocks(int fd)
{
    if (!mt_report_crash_text(fd)) {
        static const char line[] = MT_PREFIX "the live blocks cannot be listed: another "
                                             "thread is writing a report\n";
        mt_write_all(fd, line, sizeof line - 1);
    }
    unsigned skipped = atomic_load(&mt_shards_skipped);
    if (skipped != 0) {
        mt_buf_t b;
        mt_buf_init(&b, fd);
        mt_buf_line(&b);
        mt_buf_u64(&b, skipped);
        mt_buf_str(&b, " table shard walks were skipped: another thread held their lock\n");
        mt_buf_flush(&b);
    }
}

void mt_crash_report_now(const char *what, bool has_address, uintptr_t address)
{
    if (!mt_opt.crash_report)
        return;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&reporting, &expected, 1)) {
        /* Another thread is reporting and will end the process; let it finish. */
        struct timespec pause = {0, 50 * 1000 * 1000};
        for (int n = 0; n < 100 && atomic_load(&reporting) == 1; n++)
            nanosleep(&pause, NULL);
        return;
    }
    mt_in_crash = 1;
    mt_busy++;
    int fd = mt_out_fd();
    if (fd >= 0) {
        print_header(fd, what, has_address, address);
        (void)mt_check_all(crash_site);
        print_live_blocks(fd);
    }
    mt_busy--;
    mt_in_crash = 0;
    atomic_store(&reporting, 2);
}

#ifndef _WIN32
static void crash_handler(int sig, siginfo_t *info, void *context)
{
    int saved_errno = errno;
    unsigned i = 0;
    while (i < CRASH_SIGNALS && crash_signals[i] != sig)
        i++;
    if (i == CRASH_SIGNALS)
        return;
    /* An access at a page-guarded block: reported there, then it runs again or the
     * program ends as the signal would (page_guard_stop). */
    int guarded = sig != SIGABRT && info != NULL && info->si_code > 0
                      ? mt_page_guard_fault(info->si_addr, context)
                      : 0;
    if (guarded != 0) {
        if (guarded == 2)
            hand_on(i, info);
        errno = saved_errno;
        return;
    }
    bool fault = info != NULL && info->si_code > 0 && sig != SIGABRT;
    if (!(sig == SIGABRT && atomic_load(&mt_abort_expected)))
        mt_crash_report_now(crash_signal_names[i], fault, fault ? (uintptr_t)info->si_addr : 0);
    hand_on(i, info);
    errno = saved_errno;
}

#endif

void mt_crash_install(void)
{
    if ((!mt_opt.crash_report && !mt_page_guard_enabled()) || atomic_exchange(&installed, true))
        return;
    crash_site = mt_site_id(NULL, 0, NULL, MT_KIND_CRASH, NULL);
#ifdef _WIN32
    mt_platform_catch_crashes(mt_crash_report_now);
#else
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        stack_t alt = {.ss_sp = mt_pages_alloc(ALT_STACK_SIZE), .ss_size = ALT_STACK_SIZE};
        if (alt.ss_sp != NULL)
            (void)sigaltstack(&alt, NULL);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (unsigned i = 0; i < CRASH_SIGNALS; i++)
        sigaddset(&sa.sa_mask, crash_signals[i]); /* a crash inside the report ends it */
    for (unsigned i = 0; i < CRASH_SIGNALS; i++)
        (void)sigaction(crash_signals[i], &sa, &previous[i]);
#endif
}
