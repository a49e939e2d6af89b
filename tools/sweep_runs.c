/* sweep_runs.c - the runs of memtrack run --fail-sweep (sweep.h): the program once to
 * count its allocations (fail_count=1), then once per allocation k with fail_nth=k, as many
 * runs at a time as the machine has cores, each handed to sweep_outcome.c as it ends (in the
 * order of k), and the paths found once more with symbols.
 *
 * Every run gets the same input: the program's standard input, when it is a file or a pipe,
 * is read to its end once into a file each run reads from (else /dev/null: a terminal or a
 * device is not read, so give </dev/null to a sweep whose pipe never ends); its output is
 * thrown away and its standard error kept in a file for what memtrack says there. It runs
 * without address space randomization and without symbols (symbolize=0: libdw took most
 * of a run's time), so code addresses tell places apart; the paths found are run again
 * with symbols, for the summary to name their lines. (Not without symbols when fail_fn or
 * fail_site is among the options: they choose allocations by names that symbols give,
 * and every run must count as the command that runs it again does.) Each run writes its JSON report
 * (system_leaks=1: a failure that leaks inside the C library, a FILE a failing path forgot
 * to close, is the program's too). A run still going after the timeout is killed and is a
 * path that hangs. A progress line is shown while it runs when standard error is a
 * terminal, and nothing otherwise, so a CI log keeps only the summary.
 *
 * SIGINT, SIGTERM and SIGHUP (unless ignored when the sweep started) stop it: the runs
 * going on are ended and the temporary directory removed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweep.h"

static char tmp[512]; /* the sweep's temporary directory ("" until made) */
static volatile sig_atomic_t stop_signal;
static sigset_t old_mask; /* the runs' signal mask: the sweep's as it started */

static void on_stop(int sig)
{
    stop_signal = sig;
}

double sweep_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The temporary directory and the files in it (all the sweep's own: no directory below). */
void sweep_runs_end(void)
{
    if (tmp[0] == '\0')
        return;
    DIR *d = opendir(tmp);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        char path[PATH_MAX];
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            snprintf(path, sizeof path, "%s/%s", tmp, e->d_name) < (int)sizeof path)
            (void)unlink(path);
    }
    if (d != NULL)
        closedir(d);
    (void)rmdir(tmp);
    tmp[0] = '\0';
}

/* ---- one run -------------------------------------------------------------------------------- */

typedef struct running {
    pid_t pid;
    uint64_t k; /* 0: the counting run */
    double started;
    bool killed;
} running_t;

static void file_of(char *out, size_t size, uint64_t k, const char *kind)
{
    snprintf(out, size, "%s/%llu.%s", tmp, (unsigned long long)k, kind);
}

/* Starts run k (0: the count) with its options, with symbols or without (the sweep's runs:
 * symbolizing took most of a run's time; the paths found are run again with them); the
 * pid, or -1. */
static pid_t start(const sweep_t *s, uint64_t k, bool symbols)
{
    char err[PATH_MAX], json[PATH_MAX], in[PATH_MAX];
    file_of(err, sizeof err, k, "err");
    file_of(json, sizeof json, k, "json");
    snprintf(in, sizeof in, "%s/stdin", tmp);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* the child: without address space randomization, so that the addresses of code that
     * was not symbolized are the same in every run (what tells its places apart) */
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    int persona = personality(0xffffffff);
    if (persona != -1)
        (void)personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
    size_t size = strlen(s->options) + 2 * PATH_MAX + 256;
    char *options = malloc(size);
    if (options == NULL)
        _exit(127);
    char pick[96];
    if (k == 0)
        snprintf(pick, sizeof pick, "fail_count=1");
    else
        snprintf(pick, sizeof pick, "fail_nth=%llu%s", (unsigned long long)k,
                 s->window ? ":fail_window=1" : "");
    snprintf(options, size,
             "%s%s%s:json=%s:report=stderr:quiet=0:crash_report=1:system_leaks=1:exitcode=-1%s",
             s->options, s->options[0] != '\0' ? ":" : "", pick, json,
             symbols || s->symbols ? "" : ":symbolize=0");
    if (s->track_named) {
        size_t n = strlen(options);
        snprintf(options + n, size - n, ":track_pid=%ld", (long)getpid());
    }
    setenv("MEMTRACK_OPTIONS", options, 1);
    if (s->preload != NULL && s->preload[0] != '\0')
        setenv("LD_PRELOAD", s->preload, 1);
    int fd_in = open(in, O_RDONLY | O_CLOEXEC);
    if (fd_in < 0)
        fd_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int fd_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
    int fd_err = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_in < 0 || fd_out < 0 || fd_err < 0 || dup2(fd_in, 0) < 0 || dup2(fd_out, 1) < 0 ||
        dup2(fd_err, 2) < 0)
        _exit(127);
    execvp(s->prog[0], s->prog);
    fprintf(stderr, "%s: %s: %s\n", SWEEP_PROG, s->prog[0], strerror(errno));
    _exit(127);
}

/* ---- the count ------------------------------------------------------------------------------ */

/* Copies standard input, when it is a file or a pipe (read to its end), for every run to
 * read; a terminal or a device is not read: the runs get /dev/null. */
static bool keep_stdin(void)
{
    char in[PATH_MAX];
    snprintf(in, sizeof in, "%s/stdin", tmp);
    struct stat st;
    if (fstat(0, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)))
        return true;
    int fd = open(in, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return false;
    char buf[65536];
    ssize_t n;
    bool ok = true;
    while ((n = read(0, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || write(fd, buf, (size_t)n) != n) {
            ok = n < 0 && errno == EBADF; /* no standard input at all: none to give */
            break;
        }
    }
    return close(fd) == 0 && ok;
}

/* Shows what the counting run printed, when it went wrong; true when memtrack said some
 * of it (the program has memtrack). */
static bool show_err(uint64_t k)
{
    char err[PATH_MAX];
    file_of(err, sizeof err, k, "err");
    FILE *f = fopen(err, "r");
    if (f == NULL)
        return false;
    char line[4096];
    bool ours = false;
    while (fgets(line, sizeof line, f) != NULL) {
        fputs(line, stderr);
        ours |= strncmp(line, "memtrack: ", 10) == 0;
    }
    fclose(f);
    return ours;
}

/* Waits for pid, killing it after timeout seconds (0: none); its status as memtrack run
 * gives it, in *signal what ended it and in *hung whether the timeout did. */
static int wait_for(pid_t pid, double timeout, int *signal, bool *hung)
{
    int st = 0;
    double t0 = sweep_now();
    *hung = false;
    for (;;) {
        pid_t got = waitpid(pid, &st, timeout > 0 ? WNOHANG : 0);
        if (got == pid || (got < 0 && errno != EINTR))
            break;
        if (got == 0) {
            struct timespec pause = {0, 5 * 1000 * 1000};
            nanosleep(&pause, NULL);
            if (!*hung && sweep_now() - t0 > timeout) {
                (void)kill(pid, SIGKILL);
                *hung = true;
            }
        }
    }
    *signal = WIFSIGNALED(st) && !*hung ? WTERMSIG(st) : 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 2;
}

/* The first run: how many allocations there are to fail, and the leaks and errors the
 * program has anyway (the baseline). 0 when it cannot be swept, after a message. */
int sweep_count(sweep_t *s, double *took)
{
    double t0 = sweep_now();
    pid_t pid = start(s, 0, false);
    if (pid < 0) {
        fprintf(stderr, "%s: --fail-sweep: cannot start the program: %s\n", SWEEP_PROG,
                strerror(errno));
        return 0;
    }
    int sig;
    bool hung;
    int status = wait_for(pid, 0, &sig, &hung);
    *took = sweep_now() - t0;
    char json[PATH_MAX];
    file_of(json, sizeof json, 0, "json");
    if (sig != 0 || status == 127 || !report_load(json, &s->baseline, NULL)) {
        bool ours = show_err(0);
        if (sig != 0)
            fprintf(stderr,
                    "%s: --fail-sweep: the program died of signal %d with no failure "
                    "made: fix that first\n",
                    SWEEP_PROG, sig);
        else if (ours)
            fprintf(stderr, "%s: --fail-sweep: its first run wrote no report (exit status %d)\n",
                    SWEEP_PROG, status);
        else if (status != 127)
            fprintf(stderr,
                    "%s: --fail-sweep: %s wrote no report (exit status %d): build it "
                    "with memtrack cc, or use --preload\n",
                    SWEEP_PROG, s->prog[0], status);
        return 0;
    }
    /* A program that marks windows is swept inside them (start-up spared). */
    const mt_injected_t *in = &s->baseline.model.injected;
    s->window = in->windows != 0;
    s->counted = s->window ? in->in_windows : in->counted;
    if (s->counted == 0) {
        fprintf(stderr, "%s: --fail-sweep: %s made no allocation to fail%s\n", SWEEP_PROG,
                s->prog[0], in->windows != 0 ? " inside its memtrack_fail_begin() windows" : "");
        return 0;
    }
    return 1;
}

/* ---- every allocation in turn ------------------------------------------------------------ */

static void progress(const sweep_t *s, uint64_t done, uint64_t total, bool last)
{
    static double shown;
    double t = sweep_now();
    if (!last && t - shown < 0.1)
        return;
    shown = t;
    size_t bad = s->npaths;
    fprintf(stderr, "\r\033[Kmemtrack: fail sweep: %llu of %llu runs, %zu failure path%s found",
            (unsigned long long)done, (unsigned long long)total, bad, bad == 1 ? "" : "s");
    if (last)
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

static void judge(sweep_t *s, const running_t *r, int status, int sig)
{
    char err[PATH_MAX], json[PATH_MAX];
    file_of(err, sizeof err, r->k, "err");
    file_of(json, sizeof json, r->k, "json");
    sweep_judge(s, r->k, status, r->killed ? 0 : sig, r->killed, err, json);
    (void)unlink(err);
    (void)unlink(json);
}

/* Runs allocations from..to, jobs at a time; false when stopped by a signal. */
bool sweep_all(sweep_t *s, double timeout)
{
    running_t *slots = calloc(s->jobs, sizeof *slots);
    if (slots == NULL)
        return false;
    uint64_t next = s->from, done = 0, total = s->to - s->from + 1, results = 0;
    unsigned busy = 0;
    bool tty = isatty(2);
    /* Runs are judged in the order of k, so a path lists its allocations ascending and
     * the first one's run is the one kept: finished runs wait for those before them. */
    typedef struct ended {
        uint64_t k;
        int status, sig;
        bool killed;
    } ended_t;
    ended_t *waiting = NULL;
    size_t nwaiting = 0, waiting_size = 0;
    uint64_t judged = s->from;
    while ((next <= s->to || busy > 0 || nwaiting > 0) && stop_signal == 0) {
        while (busy < s->jobs && next <= s->to && stop_signal == 0) {
            unsigned i = 0;
            while (slots[i].pid != 0)
                i++;
            pid_t pid = start(s, next, false);
            if (pid < 0) {
                free(slots);
                free(waiting);
                return false;
            }
            slots[i] = (running_t){pid, next++, sweep_now(), false};
            busy++;
        }
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid == 0 || (pid < 0 && errno == EINTR)) {
            struct timespec pause = {0, 5 * 1000 * 1000};
            nanosleep(&pause, NULL);
            double t = sweep_now();
            for (unsigned i = 0; i < s->jobs; i++)
                if (slots[i].pid != 0 && !slots[i].killed && t - slots[i].started > timeout) {
                    (void)kill(slots[i].pid, SIGKILL);
                    slots[i].killed = true;
                }
        } else if (pid > 0) {
            unsigned i = 0;
            while (i < s->jobs && slots[i].pid != pid)
                i++;
            if (i == s->jobs)
                continue;
            if (nwaiting == waiting_size) {
                size_t size = waiting_size != 0 ? 2 * waiting_size : 16;
                ended_t *bigger = realloc(waiting, size * sizeof *bigger);
                if (bigger == NULL)
                    break;
                waiting = bigger;
                waiting_size = size;
            }
            waiting[nwaiting++] = (ended_t){slots[i].k,
                                            WIFEXITED(st)     ? WEXITSTATUS(st)
                                            : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
                                                              : 2,
                                            WIFSIGNALED(st) ? WTERMSIG(st) : 0, slots[i].killed};
            slots[i].pid = 0;
            busy--;
        } else if (busy == 0 && nwaiting == 0) {
            break;
        }
        for (size_t w = 0; w < nwaiting;) { /* the runs due now, in order */
            if (waiting[w].k != judged) {
                w++;
                continue;
            }
            running_t r = {0, waiting[w].k, 0, waiting[w].killed};
            judge(s, &r, waiting[w].status, waiting[w].sig);
            waiting[w] = waiting[--nwaiting];
            judged++;
            results++;
            w = 0;
        }
        if (tty && results != done) {
            done = results;
            progress(s, done, total, false);
        }
    }
    if (tty)
        progress(s, done, total, true);
    for (unsigned i = 0; i < s->jobs; i++) /* stopped: the runs going on end too */
        if (slots[i].pid != 0) {
            (void)kill(slots[i].pid, SIGKILL);
            while (waitpid(slots[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
    free(slots);
    free(waiting);
    return stop_signal == 0;
}

/* The paths found run again with symbols, so that the summary names their lines: the first
 * run again (the baseline to tell their leaks from), then each path's first allocation. */
void sweep_again(sweep_t *s, double timeout)
{
    report_file_t base;
    char err[PATH_MAX], json[PATH_MAX];
    int sig;
    bool hung;
    file_of(json, sizeof json, 0, "json");
    pid_t pid = start(s, 0, true);
    if (pid < 0 || (wait_for(pid, timeout, &sig, &hung), sig != 0 || hung) ||
        !report_load(json, &base, NULL))
        return; /* the paths keep what the sweep's runs said */
    for (size_t i = 0; i < s->npaths && stop_signal == 0; i++) {
        uint64_t k = s->paths[i].ks[0];
        file_of(err, sizeof err, k, "err");
        file_of(json, sizeof json, k, "json");
        pid = start(s, k, true);
        if (pid < 0)
            break;
        int status = wait_for(pid, timeout, &sig, &hung);
        (void)sweep_refine(&s->paths[i], &base, status, sig, hung, err, json);
        (void)unlink(err);
        (void)unlink(json);
    }
    report_unload(&base);
}

bool sweep_runs_begin(void)
{
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/memtrack-sweep.XXXXXX",
             dir != NULL && dir[0] != '\0' && strlen(dir) < 400 && strpbrk(dir, ":,") == NULL
                 ? dir
                 : "/tmp"); /* (a report's path goes into MEMTRACK_OPTIONS) */
    if (mkdtemp(tmp) == NULL) {
        tmp[0] = '\0';
        fprintf(stderr, "%s: --fail-sweep: cannot make a temporary directory: %s\n", SWEEP_PROG,
                strerror(errno));
        return false;
    }
    /* Children are waited for here: SIGCHLD stays as it was. The stop signals end the
     * sweep between runs, unless they were ignored (a job started in the background). */
    static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        struct sigaction old, sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        sigemptyset(&sa.sa_mask);
        if (sigaction(stops[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            (void)sigaction(stops[i], &sa, NULL);
    }
    sigprocmask(SIG_SETMASK, NULL, &old_mask);
    if (!keep_stdin()) {
        fprintf(stderr, "%s: --fail-sweep: cannot keep standard input for every run: %s\n",
                SWEEP_PROG, strerror(errno));
        return false;
    }
    return true;
}

int sweep_stopped(void)
{
    return stop_signal;
}
