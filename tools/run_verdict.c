/* run_verdict.c - the end of `memtrack run`: its verdict over the reports the run's tracked
 * processes wrote, and what it tells the user of them (memtrack-report --found), and whether
 * a program that wrote none was built with memtrack at all (--links-memtrack).
 *
 * Every process that leaked or erred is told of where the user can see it: the program
 * named shows its own report, unless it could not (it closed its standard error before
 * exit, as every coreutils program does, or sent it elsewhere), when memtrack run shows it
 * from the JSON; every other process (a driver's tests, a script's children, whose standard
 * error may be /dev/null) gets a line naming it and where its report is kept, and so does
 * the program when there are others: the lines end the run as its summary.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_read.h"
#include "run.h"

extern const char *prog; /* the tool's name in its messages (memtrack-report.c) */

/* True when the report's text reached the user: a file the options named, a quiet run, a
 * report from before memtrack said where it went, or the same stream of memtrack run's
 * (its standard error, or output), written whole. */
static bool seen(const mt_printed_t *p)
{
    if (p->to == NULL || strcmp(p->to, "none") == 0 || strcmp(p->to, "file") == 0)
        return true;
    struct stat st;
    int fd = strcmp(p->to, "stdout") == 0 ? STDOUT_FILENO : STDERR_FILENO;
    return p->written && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == p->device &&
           (uint64_t)st.st_ino == p->inode;
}

/* "memtrack: run: ls (pid 12) could not print its report: ...; here it is, from its JSON
 * report:", then the report, each error listed (their messages were lost with it). */
static void show_unseen(const mt_report_t *r)
{
    const mt_printed_t *p = &r->printed;
    const char *stream = strcmp(p->to, "stdout") == 0 ? "standard output" : "standard error";
    mt_buf_t b;
    mt_buf_init(&b, STDERR_FILENO);
    mt_buf_line(&b);
    mt_buf_fmt(&b, "run: %-s (pid %" PRIu64, r->program, r->pid);
    if (p->written) {
        mt_buf_fmt(&b,
                   ") printed its report where memtrack run's %s is not (its own was redirected)",
                   stream);
    } else if (p->error_number == 0) { /* (error: a file of the program's in its place) */
        mt_buf_fmt(&b,
                   ") could not print its report: it had put a file of its own in place of its %s, "
                   "which memtrack never writes into",
                   stream);
    } else if (p->error_number == EBADF) {
        mt_buf_fmt(&b, ") could not print its report: it had closed its %s before it exited",
                   stream);
    } else {
        mt_buf_fmt(&b, ") could not print its report: writing to its %s failed (%-s)", stream,
                   p->error != NULL ? p->error : "?");
    }
    mt_buf_str(&b, "; here it is, from its JSON report:\n");
    mt_render_text(r, &b, MT_TEXT_LIST_ERRORS);
    mt_buf_flush(&b);
}

/* "memtrack: run: ./unit (pid 7): 77 bytes leaked in 1 block, 0 errors; its report: PATH" */
static void name_process(const mt_report_t *r, const char *path)
{
    mt_buf_t b;
    mt_buf_init(&b, STDERR_FILENO);
    mt_buf_line(&b);
    mt_buf_fmt(&b, "run: %-s (pid %" PRIu64 "): ", r->program, r->pid);
    mt_buf_count(&b, r->leaked_bytes, "byte", "bytes");
    mt_buf_str(&b, " leaked in ");
    mt_buf_count(&b, r->leaked_blocks, "block", "blocks");
    mt_buf_str(&b, ", ");
    mt_buf_count(&b, r->errors, "error", "errors");
    mt_buf_fmt(&b, "; its report: %-s\n", path);
    mt_buf_flush(&b);
}

int run_verdict(int argc, char **argv)
{
    char *end;
    if (argc < 2) {
        fprintf(stderr, "%s: --found needs the program's pid and at least one report\n", prog);
        return 2;
    }
    unsigned long long main_pid = strtoull(argv[0], &end, 10);
    if (*argv[0] == '\0' || *end != '\0')
        main_pid = 0; /* not known: every process is another */
    int status = 0;
    bool named = false;
    for (int i = 1; i < argc; i++) {
        report_file_t l;
        if (!report_load(argv[i], &l, prog))
            return 2;
        if (mt_report_found(&l.model)) {
            status = 1;
            bool program = l.model.pid == main_pid;
            if (program && !seen(&l.model.printed))
                show_unseen(&l.model);
            if (!program || argc > 2) { /* several processes: each one with findings named */
                name_process(&l.model, argv[i]);
                named = true;
            }
        }
        report_unload(&l);
    }
    return status == 0 ? 0 : named ? 3 : 1;
}

bool run_links_memtrack(const char *path)
{
    static const char *const marks[] = {"libmemtrack", "MEMTRACK_OPTIONS"};
    char chunk[1 << 16];
    size_t keep = 0, max_mark = 16; /* (the longest mark's length: one may cross two reads) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    /* Only a program's image counts: a script that names libmemtrack is not tracked. */
    bool found = false, elf = read(fd, chunk, 4) == 4 && memcmp(chunk, "\177ELF", 4) == 0;
    for (ssize_t n; elf && !found && (n = read(fd, chunk + keep, sizeof chunk - keep)) > 0;) {
        size_t len = keep + (size_t)n;
        for (size_t m = 0; m < sizeof marks / sizeof marks[0] && !found; m++)
            found = memmem(chunk, len, marks[m], strlen(marks[m])) != NULL;
        keep = len < max_mark ? len : max_mark;
        memmove(chunk, chunk + len - keep, keep);
    }
    close(fd);
    return found;
}
