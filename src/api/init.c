/* init.c - starting the tracker (the options, once, at the first call of any entry point
 * or at load time) and the block layout, frozen when the first block is made. The rest of
 * the process's lifecycle (fork, the crash handler, the exit report) is lifecycle.c's.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <fnmatch.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "api/fail.h"
#include "base/output.h"

atomic_int mt_state;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Does one of the '|'-separated globs match path? A glob without '/' matches the file name
 * alone, as in the suppressions. */
static bool program_matches(const char *globs, const char *path)
{
    const char *name = strrchr(path, '/');
    name = name != NULL ? name + 1 : path;
    char glob[MT_OPTION_STRING_MAX];
    for (const char *p = globs; *p != '\0';) {
        size_t n = strcspn(p, "|");
        if (n > 0 && n < sizeof glob) {
            memcpy(glob, p, n);
            glob[n] = '\0';
            if (fnmatch(glob, memchr(glob, '/', n) != NULL ? path : name, 0) == 0)
                return true;
        }
        p += n + (p[n] == '|');
    }
    return false;
}

/* Option track_programs (memtrack run --preload --track): a process that is neither the one
 * memtrack run started (track_pid) nor running a matching executable stands aside, as if
 * memtrack were not there: nothing tracked, printed or written, its exit status its own.
 * Its frees still find the tracked blocks a tracked parent may have handed it. */
static void stand_aside_unless_tracked(void)
{
    if (!mt_opt.track_all || mt_opt.track_programs[0] == '\0')
        return;
    if (mt_opt.track_pid != 0 && (size_t)getpid() == mt_opt.track_pid)
        return;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        if (program_matches(mt_opt.track_programs, exe))
            return;
    }
    (void)mt_options_parse("track_all=0:quiet=1:leaks=0:exitcode=-1:json=:sarif=:html=:"
                           "crash_report=0:timeline=0:page_guard_rate=0",
                           "track_programs");
    mt_fail_stand_aside();
}

static void init_once_fn(void)
{
    mt_busy++;
    mt_out_remember_std(); /* before any message: what descriptors 1 and 2 are now */
    mt_options_init();
    /* Before standing aside: a process that tracks nothing (a driver of tests) still holds
     * its run's report file, so that the processes it starts append to it. */
    mt_out_claim();
    stand_aside_unless_tracked();
    (void)mt_libc_usable_size(NULL); /* resolve it now, not inside a lock */
    if (mt_opt.verbose) {
        mt_buf_t b;
        mt_buf_init(&b, mt_out_fd());
        mt_buf_line(&b);
        mt_buf_str(&b, "tracking ");
        mt_buf_program(&b, mt_program_name(), mt_process_id());
        mt_buf_fmt(&b, ", guard %" PRIu64 " bytes\n", (uint64_t)mt_opt.guard);
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

void mt_freeze_layout_slow(void)
{
    mt_init();
    mt_fail_freeze(); /* first: it asks the page guards for every allocation's slow branch */
    mt_layout_freeze();
}

size_t mt_guard_size(void)
{
    mt_freeze_layout();
    return mt_guard_bytes;
}
