/* write.c - writes the reports: at exit, on demand (memtrack_report), since a checkpoint
 * (memtrack_report_since) and for the crash handler. The renderers (render_*.c) turn the
 * model report.c builds into text, JSON, SARIF and HTML; the text goes to the report stream
 * and the others to the files the options json=, sarif= and html= name, each written beside
 * its path and renamed into place. Out of memory at exit, the totals and the oldest leaked
 * blocks are printed without a model.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "api/fail.h"
#include "api/owned.h"
#include "api/reach.h"
#include "base/exit_now.h"
#include "base/output.h"
#include "base/symbolize.h"
#include "base/unwind.h"
#include "records/stats.h"
#include "records/timeline.h"
#include "report/report.h"

/* The process that loaded the library: a forked child writes report files only to a
 * path with "%p", so it never overwrites its parent's. */
static pid_t first_pid;

__attribute__((constructor(102))) static void remember_pid(void)
{
    first_pid = getpid();
}

static void warn_file(const char *what, const char *path, int err)
{
    mt_buf_t b;
    mt_warning_begin(&b);
    mt_buf_fmt(&b, "cannot write the %s report to '%s': %s", what, path,
               err == ELOOP ? "it is a symbolic link, which memtrack does not follow"
                            : strerror(err));
    mt_warning_end(&b);
}

/* Renders r into the file the option names, if any. */
/* Renders r into fd; returns 0 or the errno of the first write or of the close that failed. */
static int render_to(int fd, const mt_report_t *r, void (*render)(const mt_report_t *, mt_buf_t *))
{
    mt_buf_t b;
    mt_buf_init(&b, fd);
    render(r, &b);
    mt_buf_flush(&b);
    int err = b.error;
    if (close(fd) != 0 && err == 0 && errno != EINTR)
        err = errno;
    return err;
}

/* Writes a whole report to path, never through a symbolic link: a regular file (or none yet)
 * is replaced by renaming a new file written beside it, so a reader never sees half a report
 * and a link planted at the path is replaced, not followed (where there is no rename, as
 * with newlib on bare metal, the path itself is written); a device or a FIFO that is already
 * there (/dev/stdout, a pipe) is written directly, without waiting for a reader. Returns 0 or
 * an errno value (ELOOP for a symbolic link). */
static int write_whole_file(const char *path, const mt_report_t *r,
                            void (*render)(const mt_report_t *, mt_buf_t *))
{
    struct stat st;
    bool exists = lstat(path, &st) == 0;
    if (exists && S_ISLNK(st.st_mode))
        return ELOOP;
    if (exists && !S_ISREG(st.st_mode)) {
        int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        return fd < 0 ? errno : render_to(fd, r, render);
    }
    char tmp[MT_OPTION_STRING_MAX + 64];
    mt_buf_t name;
    mt_buf_init(&name, -1);
    mt_buf_fmt(&name, "%s.tmp.%" PRIu64, path, (uint64_t)getpid());
    if (name.len >= sizeof tmp)
        return ENAMETOOLONG;
    memcpy(tmp, name.data, name.len);
    tmp[name.len] = '\0';
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    int err = render_to(fd, r, render);
    if (err == 0 && rename(tmp, path) != 0)
        err = errno;
    if (err != 0)
        (void)unlink(tmp);
    if (err == ENOSYS) { /* no rename here (newlib without link()): the path itself, then */
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        err = fd < 0 ? errno : render_to(fd, r, render);
    }
    return err;
}

static void write_file(const mt_report_t *r, const char *path, const char *what,
                       void (*render)(const mt_report_t *, mt_buf_t *))
{
    char full[MT_OPTION_STRING_MAX + 32];
    if (path == NULL || path[0] == '\0')
        return;
    if (strstr(path, "%p") == NULL && first_pid != 0 && getpid() != first_pid)
        return;
    if (!mt_expand_path(path, full, sizeof full)) {
        warn_file(what, path, ENAMETOOLONG);
        return;
    }
    int err = write_whole_file(full, r, render);
    if (err != 0)
        warn_file(what, full, err);
}

/* Where the text went (the report stream fd, err the first failed write's errno), for the
 * files written after it: memtrack run shows a report the user could not see. */
static void note_printed(int fd, int err, mt_printed_t *printed)
{
    const char *report = mt_opt.report;
    bool to_stderr = report == NULL || report[0] == '\0' || strcmp(report, "stderr") == 0;
    printed->to = mt_opt.quiet                    ? "none"
                  : to_stderr                     ? "stderr"
                  : strcmp(report, "stdout") == 0 ? "stdout"
                                                  : "file";
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        printed->device = (uint64_t)st.st_dev;
        printed->inode = (uint64_t)st.st_ino;
    }
    /* A stream it could not have, nothing reached anyone: closed, or (stdout, stderr) a file
     * the program put in its place, which is never written into (base/output.c). */
    bool replaced = false;
    if (err == 0 && fd < 0 && !mt_opt.quiet) {
        replaced = strcmp(printed->to, "file") != 0 &&
                   mt_std_replaced(to_stderr ? STDERR_FILENO : STDOUT_FILENO);
        err = replaced ? 0 : EBADF;
    }
    printed->written = err == 0 && !replaced;
    printed->error = replaced   ? "a file of the program's in its place"
                     : err != 0 ? strerror(err)
                                : NULL;
    printed->error_number = (uint64_t)err;
}

/* Prints r's text to the report stream; *printed (when not NULL) gets where it went. */
static void print_text(const mt_report_t *r, unsigned flags, mt_printed_t *printed)
{
    int fd = mt_out_fd();
    mt_buf_t b;
    mt_buf_init(&b, fd);
    mt_out_lock();
    mt_render_text(r, &b, flags);
    mt_buf_flush(&b);
    mt_out_unlock();
    /* A reader that has gone is no news; a file the limit or the disk cut short is. */
    if (b.error != 0 && b.error != EPIPE)
        warn_file("text", mt_opt.report[0] != '\0' ? mt_opt.report : "stderr", b.error);
    if (printed != NULL)
        note_printed(fd, b.error, printed);
}

static bool print_without_memory(bool at_exit);

MT_EXPORT void memtrack_report(void)
{
    MT_ENTRY();
    mt_report_t r;
    int saved = errno; /* the program's errno is as it was */
    mt_init();
    mt_owners_publish(); /* arena allocations only logged so far (api/arena_tracked.c) */
    mt_busy++;
    mt_report_lock();
    if (mt_report_build(&r, MT_WHEN_NOW, 1)) {
        print_text(&r, 0, NULL);
        mt_report_free(&r);
    } else {
        (void)print_without_memory(false);
    }
    mt_report_unlock();
    mt_busy--;
    errno = saved;
}

/* The live blocks as the crash handler prints them (api/crash.c). Nothing waits: a
 * report being built by another thread, or one the crashed thread held, means none. */
bool mt_report_crash_text(int fd)
{
    mt_report_t r;
    if (!mt_report_trylock())
        return false;
    bool built = mt_report_build(&r, MT_WHEN_NOW, 1);
    if (built) {
        mt_buf_t b;
        mt_buf_init(&b, fd);
        mt_render_text(&r, &b, 0);
        mt_buf_flush(&b);
        mt_report_free(&r);
    }
    mt_report_unlock();
    return built;
}

MT_EXPORT unsigned long memtrack_checkpoint(void)
{
    MT_ENTRY();
    mt_init();
    return (unsigned long)mt_seq_upcoming();
}

/* Builds and prints a report of live blocks: when since (the mark of a checkpoint) or
 * when lost (the leak scan's lost blocks now); returns how many it lists. */
static size_t report_live(mt_when_t when, uint64_t since)
{
    mt_report_t r;
    size_t blocks = 0;
    int saved = errno;
    mt_init();
    mt_owners_publish();
    mt_busy++;
    mt_report_lock();
    if (mt_report_build(&r, when, since)) {
        blocks = (size_t)r.leaked_blocks;
        print_text(&r, mt_opt.verbose ? 0 : MT_TEXT_SILENT_WHEN_CLEAN, NULL);
        mt_report_free(&r);
    }
    mt_report_unlock();
    mt_busy--;
    errno = saved;
    return blocks;
}

/* (Entry points of the leak scan: the stack above them is the program's, api/reach.h.) */
MT_EXPORT MT_NOINLINE size_t memtrack_report_since(unsigned long mark)
{
    MT_ENTRY();
    MT_REACH_FROM_HERE();
    size_t blocks = report_live(MT_WHEN_SINCE, mark == 0 ? 1 : (uint64_t)mark);
    mt_reach_leave();
    return blocks;
}

MT_EXPORT MT_NOINLINE size_t memtrack_check_leaks(void)
{
    MT_ENTRY();
    MT_REACH_FROM_HERE();
    size_t lost = report_live(MT_WHEN_LOST, 1);
    mt_reach_leave();
    return lost;
}

static atomic_flag exit_reported = ATOMIC_FLAG_INIT;

/* Called from libmemtrack's destructor, after the program's atexit handlers and static
 * destructors: what they free is not a leak. Exactly once, whatever way the process ends
 * (exit, return from main, the last thread's pthread_exit); _exit and exec skip it. */
/* The exit report when there is no memory left to build it (the program used it all up):
 * the totals, which need none, rather than nothing. Returns whether leaks or errors were
 * found, so exitcode still applies. */
#define STREAMED_MAX 30u

/* The program's leaked blocks, counted, and the oldest of them (the smallest sequence
 * numbers), one by one: no memory to group them by site. The blocks of system libraries
 * and of the C++ runtime are left out, as the full report leaves them out of its leaks. */
typedef struct streamed {
    uint64_t bytes, blocks; /* every leaked block of the program's */
    size_t n;
    struct {
        size_t size;
        uint64_t seq;
        uint32_t site;
    } block[STREAMED_MAX];
} streamed_t;

static void note_block(mt_block_t *b, void *ctx)
{
    streamed_t *s = ctx;
    uint64_t seq = MT_META_SEQ(b->meta);
    if (b->meta & MT_META_FLAG_OWNED)
        return;
    if (!mt_opt.system_leaks && mt_site_listed_apart(b->site))
        return;
    s->bytes += b->size;
    s->blocks++;
    size_t at = s->n;
    if (s->n == STREAMED_MAX) { /* full: take the place of the newest, if this is older */
        at = 0;
        for (size_t i = 1; i < s->n; i++)
            if (s->block[i].seq > s->block[at].seq)
                at = i;
        if (s->block[at].seq < seq)
            return;
    } else {
        s->n++;
    }
    s->block[at].size = b->size;
    s->block[at].seq = seq;
    s->block[at].site = b->site;
}

/* The report when its working memory could not be had: the totals and the first blocks,
 * streamed. at_exit: the exit report (its files too), else memtrack_report()'s. */
static bool print_without_memory(bool at_exit)
{
    memtrack_stats_t st;
    mt_stats_read(&st);
    size_t errors = mt_error_total();
    bool leak_check = mt_leaks_mode() != MT_LEAKS_NONE;
    streamed_t first = {0};
    if (leak_check || !at_exit)
        mt_table_foreach(note_block, &first); /* before the output's lock: the lock order */
    bool leaks = first.blocks != 0;
    mt_shortage_t shortage;
    mt_report_shortage(&shortage);
    if (!leaks && errors == 0 && !mt_opt.verbose && shortage.size == 0)
        return false;
    /* The model the files get: the same totals, in a report with no sites (its arrays are
     * empty) that says it is partial; the text reads its peak from it too. */
    mt_report_t r;
    memset(&r, 0, sizeof r);
    r.version = MEMTRACK_VERSION;
    r.program = mt_program_name();
    r.pid = mt_process_id();
    r.when = MT_WHEN_EXIT;
    r.stats = st;
    r.stats.errors = errors;
    r.leak_check = leak_check;
    r.leaked_bytes = first.bytes;
    r.leaked_blocks = first.blocks;
    r.partial =
        mt_suppress_count() != 0 ? MT_PARTIAL_OUT_OF_MEMORY_UNSUPPRESSED : MT_PARTIAL_OUT_OF_MEMORY;
    r.errors = errors;
    r.max_messages = mt_opt.max_messages;
    r.shortage = shortage;
    r.stacks_unavailable = mt_unwind_unavailable();
    mt_stats_system_read(&r.system_counts);
    mt_timeline_peak_read(&r.peak);
    mt_report_peak_now(&r);
    if (!at_exit)
        r.when = MT_WHEN_NOW;
    mt_buf_t b;
    mt_buf_init(&b, mt_out_fd());
    mt_out_lock();
    mt_render_text(&r, &b, 0);           /* the totals, as memtrack report renders the JSON's */
    for (size_t i = 1; i < first.n; i++) /* oldest first: at most 30, so insertion sort */
        for (size_t j = i; j > 0 && first.block[j - 1].seq > first.block[j].seq; j--) {
            __typeof__(first.block[0]) t = first.block[j];
            first.block[j] = first.block[j - 1];
            first.block[j - 1] = t;
        }
    if (first.n != 0) {
        mt_buf_line(&b);
        mt_buf_fmt(&b, "leaked blocks, one a line, the first %" PRIu64 ":\n", (uint64_t)first.n);
    }
    for (size_t i = 0; i < first.n; i++) {
        mt_buf_line(&b);
        mt_buf_str(&b, "  ");
        mt_buf_count(&b, first.block[i].size, "byte", "bytes");
        mt_buf_str(&b, " at ");
        mt_buf_site(&b, first.block[i].site);
        mt_buf_fmt(&b, " by %s: #%" PRIu64 "\n",
                   mt_kind_names[mt_site_get(first.block[i].site)->kind], first.block[i].seq);
    }
    mt_buf_flush(&b);
    mt_out_unlock();
    if (!at_exit)
        return leaks || errors != 0;
    note_printed(b.fd, b.error, &r.printed);
    write_file(&r, mt_opt.json, "JSON", mt_render_json);
    write_file(&r, mt_opt.sarif, "SARIF", mt_render_sarif);
    write_file(&r, mt_opt.html, "HTML", mt_render_html);
    return leaks || errors != 0;
}

/* A clean run prints nothing and asks for no file: the exit report need not be built (a
 * suite of many small processes pays for it once a process). A run whose tracker ran out
 * of memory is not clean: blocks went untracked, and the report says so; nor is one asked
 * to make allocations fail (options fail_*), whose report lists them. */
static bool clean_and_silent(void)
{
    mt_shortage_t shortage;
    mt_report_shortage(&shortage);
    return !mt_opt.verbose && !mt_opt.unwritten && !mt_fail_armed && mt_opt.json[0] == '\0' &&
           mt_opt.sarif[0] == '\0' && mt_opt.html[0] == '\0' && mt_error_total() == 0 &&
           mt_table_empty() && shortage.size == 0;
}

void mt_report_at_exit(bool flush)
{
    mt_report_t r;
    if (atomic_flag_test_and_set(&exit_reported))
        return;
    mt_init();
    atomic_store(&mt_state, 2);
    /* The program's last buffered output comes before the report, as it was written. */
    if (flush)
        fflush(stdout);
    mt_busy++;
    uint32_t exit_site = mt_site_id(NULL, 0, NULL, MT_KIND_EXIT, NULL);
    (void)mt_owners_check(exit_site); /* released pool slots and arena bytes */
    (void)mt_check_all(exit_site);
    if (clean_and_silent()) { /* nothing to say or write: no report to build */
        mt_busy--;
        return;
    }
    mt_report_lock();
    bool built = mt_report_build(&r, MT_WHEN_EXIT, 1);
    bool found = mt_error_total() != 0;
    if (built) {
        print_text(&r, mt_opt.verbose ? 0 : MT_TEXT_SILENT_WHEN_CLEAN, &r.printed);
        write_file(&r, mt_opt.json, "JSON", mt_render_json);
        write_file(&r, mt_opt.sarif, "SARIF", mt_render_sarif);
        write_file(&r, mt_opt.html, "HTML", mt_render_html);
        found = mt_report_found(&r);
        mt_report_free(&r);
        mt_symbols_save();
    } else {
        found = print_without_memory(true);
    }
    mt_report_unlock();
    mt_busy--;
    if (found && mt_opt.exitcode >= 0) {
        /* _exit skips the C library's last flush: flush the program's output first. */
        if (flush)
            fflush(NULL);
        mt_exit_now((int)(mt_opt.exitcode & 0xff));
    }
}
