/* crash.c - the report on a fatal signal: a crash caused by heap corruption still gets
 * told what was corrupted and what was live.
 *
 * At start (option crash_report, on by default) handlers for SIGSEGV, SIGBUS and SIGABRT
 * are installed, on an alternate stack for the thread that starts the tracker. The handler
 * names the place of the crash and the calls that led there, checks every live block's
 * guards and every quarantined block's fill, prints what it finds and the live blocks by
 * site, then hands the signal on as if memtrack had not been
 * there: to the handler installed before it, or to the default action (core dump). A
 * fault is handed on by returning (the faulting instruction runs again); a sent signal
 * (abort(), kill) by raising it again, delivered as soon as the handler returns. A fault
 * goes first to a handler the program installed before memtrack started (a library's
 * constructor, under --preload): the fault is the program's to handle, and is reported only
 * when that handler gives up (puts the default action back and returns).
 *
 * Everything it calls is async-signal-safe or made so in crash mode (mt_in_crash): locks
 * are only tried (a shard some thread holds is skipped and counted), output goes straight
 * to write(2), nothing is allocated (the report's scratch memory is mmapped), and no
 * symbol is looked up. The one exception is the place of the crash, named first as the
 * page guards name an access (checks/page_guard.c), symbolized with libdw: only when the
 * crashing thread was not inside the tracker and held none of its locks. A handler the
 * program installs later replaces this one.
 *
 * Windows has no such signals: there the platform layer (base/platform_windows.c) calls
 * mt_crash_report_now from its filter for exceptions no handler of the program took, and
 * from the C runtime's SIGABRT handler, and the system then ends the program as it would
 * have without memtrack.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__GLIBC__) /* (known once a C library header is read) */
#include <execinfo.h>  /* backtrace(): through the signal's frame to the crash's callers */
#define MT_HAVE_BACKTRACE 1
#endif

#include "api/api.h"
#include "api/crash_hint.h"
#include "base/lock.h"
#include "base/output.h"
#include "base/symbolize.h"
#include "base/unwind.h"
#include "checks/page_guard.h"
#include "records/stats.h"
#include "errors/format.h"
#include "records/place.h"
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
#if !defined(_WIN32) && !defined(MT_BARE_METAL) /* (where a signal's context can be read) */
#define MT_CRASH_PLACE 1
/* The place of the crash's callers, resolved (one crash report at a time prints it). */
static mt_frame_t crash_frames[MT_STACK_ROOM(MT_STACK_MAX)] MT_COLD;
#endif

/* The thread that starts the tracker has a large alternate stack; every other thread gets
 * one of its own at its first tracked block, smaller: the crash report and a page guard's
 * message need tens of KiB (the symbols are looked up on a stack of the symbolizer's own,
 * base/symbolize.c). Each sits behind a guard page; pages never touched cost nothing. */
#define ALT_STACK_SIZE (1024u * 1024u)
#define THREAD_ALT_STACK_SIZE (256u * 1024u)
#define ALT_STACK_GUARD 4096u

MT_TLS bool mt_thread_crash_ready;

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

/* True when sa runs a function of the program's (not the default action, not ignored). */
static bool program_handler(const struct sigaction *sa)
{
    if (sa->sa_flags & SA_SIGINFO)
        return sa->sa_sigaction != NULL;
    return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* Runs the handler that was installed before ours as the kernel would have (its mask, its
 * SA_RESETHAND); returns true when it left the default action in place, so the fault will
 * end the program (the program gave up on it), false when its handling stands. */
static bool let_program_handle(unsigned i, siginfo_t *info, void *context)
{
    int sig = crash_signals[i];
    struct sigaction theirs = previous[i];
    if (theirs.sa_flags & SA_RESETHAND) { /* delivered once, then the default */
        memset(&previous[i], 0, sizeof previous[i]);
        previous[i].sa_handler = SIG_DFL;
        (void)sigaction(sig, &previous[i], NULL);
    }
    sigset_t mask = theirs.sa_mask, old;
    if (!(theirs.sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    (void)pthread_sigmask(SIG_BLOCK, &mask, &old);
    if (theirs.sa_flags & SA_SIGINFO)
        theirs.sa_sigaction(sig, info, context);
    else
        theirs.sa_handler(sig);
    (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    struct sigaction now;
    return sigaction(sig, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
           now.sa_handler == SIG_DFL;
}

#endif

#ifdef MT_CRASH_PLACE
/* The interrupted instruction and frame record, from the signal's context (0 elsewhere). */
static uintptr_t context_pc(const void *context, uintptr_t *fp)
{
    const ucontext_t *uc = context;
#if defined(__x86_64__) && defined(REG_RIP)
    *fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    *fp = (uintptr_t)uc->uc_mcontext.regs[29];
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    *fp = 0;
    return 0;
#endif
}

/* The return addresses of the calls that led to pc: backtrace() unwinds through the
 * signal's frame where there is one (glibc), else the frame records from fp are walked
 * within this thread's stack. */
static unsigned crash_callers(uintptr_t pc, uintptr_t fp, void **out, unsigned max)
{
    unsigned n = 0;
#ifdef MT_HAVE_BACKTRACE
    void *all[MT_STACK_MAX + 32];
    int got = backtrace(all, (int)(sizeof all / sizeof all[0])), i = 0;
    while (i < got && (uintptr_t)all[i] != pc)
        i++;
    for (i++; i < got && n < max; i++)
        out[n++] = all[i];
    if (n > 0)
        return n;
#endif
#ifdef MT_UNWIND_FRAME_RECORDS
    uint64_t hash;
    if (fp >= mt_stack_bounds.low && fp <= mt_stack_bounds.last && mt_stack_bounds.last != 0)
        n = mt_walk_records(fp, mt_stack_bounds.last, out, max, &hash);
#else
    (void)fp;
#endif
    return n;
}

static bool is_main(const mt_place_t *p)
{
    return p->func != NULL && strcmp(p->func, "main") == 0;
}

/* The place of the crash and the calls that led there, as a site with a stack: the
 * faulting instruction, or for a signal raised inside the system's libraries (abort(), a
 * NULL passed to strlen, an exception nothing caught) the first caller outside them.
 * MT_SITE_NONE when it cannot be known. */
static uint32_t crash_place(void *context)
{
    uintptr_t fp, pc = context_pc(context, &fp);
    if (pc == 0)
        return MT_SITE_NONE;
    void *callers[MT_STACK_MAX];
    unsigned n = crash_callers(pc, fp, callers, MT_STACK_MAX), k = 0;
    /* pc + 1: sites by address are return addresses, looked up one byte before. */
    void *at = (void *)(pc + 1);
    mt_place_t p;
    if (mt_place_of(mt_site_pc(at, MT_KIND_CRASH), &p)) {
        while (k < n && mt_place_of(mt_site_pc(callers[k], MT_KIND_CRASH), &p))
            k++;
        if (k < n)
            at = callers[k++];
        else
            k = 0;
    }
    /* Up to main: what called it (the C library's start-up, which backtrace() reaches
     * where frame records end) is nobody's concern. */
    size_t depth = mt_opt.stack > 8 ? mt_opt.stack : 8;
    unsigned keep = 0;
    bool in_main = mt_place_of(mt_site_pc(at, MT_KIND_CRASH), &p) || is_main(&p);
    while (!in_main && keep < n - k && keep < depth) {
        in_main = !mt_place_of(mt_site_pc(callers[k + keep], MT_KIND_CRASH), &p) && is_main(&p);
        keep++;
    }
    return mt_site_pc_stacked(at, MT_KIND_CRASH, NULL, mt_stack_intern(callers + k, keep));
}
#endif

/* "CRASH: SIGSEGV at address 0x10 in prog (pid 7); ...": what, and the address when the
 * crash was an access to memory (has_address); then where, when it is known, and what the
 * signal's context (NULL: none) tells of memtrack's patterns (crash_hint.c). */
static void print_header(int fd, const char *what, bool has_address, uintptr_t address,
                         const mt_place_t *where, uint32_t site, const mt_block_t *gone,
                         const void *context)
{
    bool named = gone != NULL;
    mt_buf_t b, hint;
    mt_buf_init(&hint, fd);
    bool hinted = mt_crash_hint(&hint, context, has_address, address);
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
    if (where == NULL && !hinted && !named) {
        mt_buf_str(&b, "; the heap as the crash left it:\n");
        mt_buf_flush(&b);
        return;
    }
    if (where != NULL) {
        mt_buf_str(&b, ", at ");
        mt_buf_place(&b, where);
        mt_buf_char(&b, '\n');
        mt_buf_stack_lines(&b, where, "      ");
    } else {
        mt_buf_char(&b, '\n');
    }
    mt_buf_flush(&b);
    mt_buf_flush(&hint);
    if (named)
        mt_crash_report_gone(gone, address, site, context);
    mt_buf_line(&b);
    mt_buf_str(&b, "the heap as the crash left it:\n");
    mt_buf_flush(&b);
}

/* held: the locks of memtrack's the crashing thread held when it crashed. A shard whose
 * lock cannot be had is skipped, and the words say whose it was as far as is known. */
static void print_live_blocks(int fd, int held)
{
    if (!mt_report_crash_text(fd)) {
        static const char line[] = MT_PREFIX "the live blocks cannot be listed: another "
                                             "thread is writing a report\n";
        mt_write_all(fd, line, sizeof line - 1);
    }
    unsigned skipped = atomic_load(&mt_shards_skipped);
    mt_buf_t b;
    mt_buf_init(&b, fd);
    if (skipped != 0) {
        mt_buf_line(&b);
        mt_buf_fmt(&b, "%" PRIu64 "%s%s%s", (uint64_t)skipped,
                   skipped == 1 ? " table shard walk was skipped: "
                                : " table shard walks were skipped: ",
                   held == 0                       ? "another thread held "
                   : mt_stats_other_threads() == 0 ? "the crashing thread held "
                                                   : "the crashing thread or another held ",
                   skipped == 1 ? "its lock\n" : "their lock\n");
    }
    if (held != 0) {
        mt_buf_line(&b);
        mt_buf_str(&b, "the crash happened inside memtrack, holding one of its locks: its own "
                       "records were most likely overwritten (a wild write from the program "
                       "into memtrack's memory)\n");
    }
    mt_buf_flush(&b);
}

/* What the kernel said of a crash's signal (crash_report's `access`): a faulting access
 * (SIGSEGV or SIGBUS from the kernel), whose context's registers may tell of memtrack's
 * patterns, where an abort, a signal sent, a division by zero followed no pointer, whatever
 * a register holds; and an access where nothing is mapped (SEGV_MAPERR), where a block given
 * back to the C library may be named, where a mapped page (a thread stack's guard, mapped
 * since where such a block was) says nothing of it. */
enum { CRASH_ACCESS = 1, CRASH_UNMAPPED = 2 };

/* The crash report, with the place of the crash when the signal's context is given. */
static void crash_report(const char *what, bool has_address, uintptr_t address, void *context,
                         unsigned access)
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
    int held = mt_locks_held; /* this thread's, as it crashed: the report takes its own */
    /* The place is symbolized (libdw) as a report's are: not when the crash happened
     * inside the tracker, whose locks or state that would need. */
    const mt_place_t *where = NULL;
    uint32_t site = MT_SITE_NONE;
    const mt_block_t *gone = NULL; /* a block given back to the C library, at the address */
#ifdef MT_CRASH_PLACE
    mt_place_t place;
    mt_block_t gone_copy;
    bool inside = mt_busy != 0 || held != 0;
    mt_busy++;
    site = context != NULL && !inside ? crash_place(context) : MT_SITE_NONE;
    if (site != MT_SITE_NONE) {
        size_t depth = mt_opt.stack > 8 ? mt_opt.stack : 8;
        depth = depth < MT_STACK_MAX ? depth : MT_STACK_MAX;
        (void)mt_place_of(site, &place);
        (void)mt_place_stack(site, &place, crash_frames, MT_STACK_ROOM(depth), NULL, NULL);
        where = &place;
        /* An access inside a block given back to the C library is named with its sites,
         * looked up now as the place is: the crash report itself looks nothing up, and
         * names a site known by address alone (--preload) by file and line only when it
         * was named before. */
        if (has_address && (access & CRASH_UNMAPPED) && mt_crash_gone_block(address, &gone_copy)) {
            mt_place_t p;
            (void)mt_place_of(gone_copy.site, &p);
            (void)mt_place_of(gone_copy.free_site, &p);
            gone = &gone_copy;
        }
    }
#else
    (void)context;
    mt_busy++;
#endif
    mt_in_crash = 1;
    int fd = mt_out_fd();
    if (fd >= 0) {
        print_header(fd, what, has_address, address, where, site, gone,
                     (access & CRASH_ACCESS) ? context : NULL);
        (void)mt_check_all(crash_site);
        print_live_blocks(fd, held);
    }
    mt_busy--;
    mt_in_crash = 0;
    atomic_store(&reporting, 2);
}

void mt_crash_report_now(const char *what, bool has_address, uintptr_t address)
{
    crash_report(what, has_address, address, NULL, 0);
}

#ifndef _WIN32
/* Whether a fault's si_addr is the address accessed: x86-64's general protection fault
 * (an address outside the canonical half, such as memtrack's 0xdd... pattern followed as
 * a pointer) comes from the kernel with si_addr 0, which is no address at all. */
static bool address_known(const siginfo_t *info)
{
#ifdef SI_KERNEL
    return info->si_code != SI_KERNEL;
#else
    (void)info;
    return true;
#endif
}

/* crash_report's `access` for a signal (above). */
static unsigned access_of(int sig, const siginfo_t *info)
{
    if (info == NULL || info->si_code <= 0 || (sig != SIGSEGV && sig != SIGBUS))
        return 0;
#ifdef SEGV_MAPERR
    bool unmapped = sig == SIGSEGV && info->si_code == SEGV_MAPERR;
#else
    bool unmapped = false; /* (bare metal's newlib names no such fault) */
#endif
    return CRASH_ACCESS | (unmapped ? CRASH_UNMAPPED : 0);
}

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
    if (fault && program_handler(&previous[i])) {
        /* The program's own handler came first (a library's constructor, under --preload):
         * its faults are its own, silently. It gave up when it put the default back. */
        if (!let_program_handle(i, info, context)) {
            errno = saved_errno;
            return;
        }
        mt_crash_report_now(crash_signal_names[i], address_known(info), (uintptr_t)info->si_addr);
        errno = saved_errno;
        return; /* the default action now ends the program: a fault again, or its raise */
    }
    if (!(sig == SIGABRT && atomic_load(&mt_abort_expected)))
        crash_report(crash_signal_names[i], fault && address_known(info),
                     fault ? (uintptr_t)info->si_addr : 0, context, access_of(sig, info));
    hand_on(i, info);
    errno = saved_errno;
}

#endif

#if !defined(_WIN32) && !defined(MT_BARE_METAL)
static pthread_key_t thread_stack_key;
static atomic_bool thread_stacks; /* the key exists */

/* At a thread's end: its alternate stack goes, unless the program put another in its place
 * (then ours is no longer in use either). */
static void thread_stack_release(void *mapping)
{
    stack_t current;
    unsigned char *ours = (unsigned char *)mapping + ALT_STACK_GUARD;
    if (sigaltstack(NULL, &current) == 0 && current.ss_sp == ours) {
        if (current.ss_flags & SS_ONSTACK)
            return; /* ending from a handler running on it: keep it */
        stack_t off = {.ss_flags = SS_DISABLE};
        if (sigaltstack(&off, NULL) != 0)
            return;
    }
    mt_pages_free(mapping, ALT_STACK_GUARD + THREAD_ALT_STACK_SIZE);
}
#endif

void mt_crash_thread_start(void)
{
    mt_thread_crash_ready = true;
#if !defined(_WIN32) && !defined(MT_BARE_METAL)
    stack_t current;
    if (!atomic_load(&thread_stacks) || sigaltstack(NULL, &current) != 0 ||
        !(current.ss_flags & SS_DISABLE))
        return; /* no crash handler, or the thread has an alternate stack already */
    unsigned char *mapping = mt_pages_alloc(ALT_STACK_GUARD + THREAD_ALT_STACK_SIZE);
    if (mapping == NULL)
        return;
    mt_pages_protect_none(mapping, ALT_STACK_GUARD);
    stack_t alt = {.ss_sp = mapping + ALT_STACK_GUARD, .ss_size = THREAD_ALT_STACK_SIZE};
    mt_busy++; /* the C library's key storage is its own, not a block of the program's */
    bool kept = pthread_setspecific(thread_stack_key, mapping) == 0;
    mt_busy--;
    if (!kept || sigaltstack(&alt, NULL) != 0) {
        if (kept)
            (void)pthread_setspecific(thread_stack_key, NULL);
        mt_pages_free(mapping, ALT_STACK_GUARD + THREAD_ALT_STACK_SIZE);
    }
#endif
}

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
#if !defined(MT_BARE_METAL)
    if (pthread_key_create(&thread_stack_key, thread_stack_release) == 0)
        atomic_store(&thread_stacks, true);
#endif
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (unsigned i = 0; i < CRASH_SIGNALS; i++)
        sigaddset(&sa.sa_mask, crash_signals[i]); /* a crash inside the report ends it */
    for (unsigned i = 0; i < CRASH_SIGNALS; i++)
        (void)sigaction(crash_signals[i], &sa, &previous[i]);
#endif
}
