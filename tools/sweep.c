/* sweep.c - memtrack run --fail-sweep (sweep.h): runs the program once to count its
 * allocations (fail_count=1), then once per allocation k with fail_nth=k, as many runs at a
 * time as the machine has cores, and hands each ended run to sweep_outcome.c.
 *
 * Every run gets the same input: the program's standard input, when it is a file or a pipe,
 * is read to its end once into a file each run reads from (else /dev/null: a terminal or a
 * device is not read, so give </dev/null to a sweep whose pipe never ends); its output is
 * thrown away and its standard error kept in a file for what memtrack says there. It runs
 * without address space randomization and without symbols (symbolize=0: libdw took most
 * of a run's time), so code addresses tell places apart; the paths found are run again
 * with symbols, for the summary to name their lines (refine). Each run writes its JSON
 * report (system_leaks=1: a failure that leaks inside the C library, a
 * FILE a failing path forgot to close, is the program's too). A run still going after the
 * timeout (ten times the first run's time, at least ten seconds; --timeout) is killed and
 * is a path that hangs. A progress line is shown while it runs when standard error is a
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

static const char *prog = "memtrack run";
static char tmp[512]; /* the sweep's temporary directory ("" until made) */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

static int usage(const char *what, const char *value)
{
    fprintf(stderr, "%s: --fail-sweep: %s%s%s%s\n", prog, what, value != NULL ? " '" : "",
            value != NULL ? value : "", value != NULL ? "'" : "");
    return 2;
}

/* A whole number for option name (at least min); false after a message. */
static bool number(const char *name, const char *text, uint64_t min, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || v < min) {
        fprintf(stderr, "%s: --fail-sweep: %s takes a whole number from %llu, not '%s'\n", prog,
                name, (unsigned long long)min, text);
        return false;
    }
    *out = v;
    return true;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The temporary directory and the files in it (all the sweep's own: no directory below). */
static void remove_tmp(void)
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
static pid_t start(const sweep_t *s, uint64_t k, bool symbols, const sigset_t *old_mask)
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
    sigprocmask(SIG_SETMASK, old_mask, NULL);
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
             symbols ? "" : ":symbolize=0");
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
    fprintf(stderr, "%s: %s: %s\n", prog, s->prog[0], strerror(errno));
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
    double t0 = now();
    *hung = false;
    for (;;) {
        pid_t got = waitpid(pid, &st, timeout > 0 ? WNOHANG : 0);
        if (got == pid || (got < 0 && errno != EINTR))
            break;
        if (got == 0) {
            struct timespec pause = {0, 5 * 1000 * 1000};
            nanosleep(&pause, NULL);
            if (!*hung && now() - t0 > timeout) {
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
static int count(sweep_t *s, const sigset_t *old_mask, double *took)
{
    double t0 = now();
    pid_t pid = start(s, 0, false, old_mask);
    if (pid < 0)
        return usage("cannot start the program:", strerror(errno));
    int sig;
    bool hung;
    int status = wait_for(pid, 0, &sig, &hung);
    *took = now() - t0;
    char json[PATH_MAX];
    file_of(json, sizeof json, 0, "json");
    if (sig != 0 || status == 127 || !report_load(json, &s->baseline, NULL)) {
        bool ours = show_err(0);
        if (sig != 0)
            fprintf(stderr,
                    "%s: --fail-sweep: the program died of signal %d with no failure "
                    "made: fix that first\n",
                    prog, sig);
        else if (ours)
            fprintf(stderr, "%s: --fail-sweep: its first run wrote no report (exit status %d)\n",
                    prog, status);
        else if (status != 127)
            fprintf(stderr,
                    "%s: --fail-sweep: %s wrote no report (exit status %d): build it "
                    "with memtrack cc, or use --preload\n",
                    prog, s->prog[0], status);
        return 0;
    }
    /* A program that marks windows is swept inside them (start-up spared). */
    const mt_injected_t *in = &s->baseline.model.injected;
    s->window = in->windows != 0;
    s->counted = s->window ? in->in_windows : in->counted;
    if (s->counted == 0) {
        fprintf(stderr, "%s: --fail-sweep: %s made no allocation to fail%s\n", prog, s->prog[0],
                in->windows != 0 ? " inside its memtrack_fail_begin() windows" : "");
        return 0;
    }
    return 1;
}

/* ---- every allocation in turn ------------------------------------------------------------ */

static void progress(const sweep_t *s, uint64_t done, uint64_t total, bool last)
{
    static double shown;
    double t = now();
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
static bool sweep_all(sweep_t *s, const sigset_t *old_mask, double timeout)
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
            pid_t pid = start(s, next, false, old_mask);
            if (pid < 0) {
                free(slots);
                free(waiting);
                return false;
            }
            slots[i] = (running_t){pid, next++, now(), false};
            busy++;
        }
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid == 0 || (pid < 0 && errno == EINTR)) {
            struct timespec pause = {0, 5 * 1000 * 1000};
            nanosleep(&pause, NULL);
            double t = now();
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
static void refine(sweep_t *s, const sigset_t *old_mask, double timeout)
{
    report_file_t base;
    char err[PATH_MAX], json[PATH_MAX];
    int sig;
    bool hung;
    file_of(json, sizeof json, 0, "json");
    pid_t pid = start(s, 0, true, old_mask);
    if (pid < 0 || (wait_for(pid, timeout, &sig, &hung), sig != 0 || hung) ||
        !report_load(json, &base, NULL))
        return; /* the paths keep what the sweep's runs said */
    for (size_t i = 0; i < s->npaths && stop_signal == 0; i++) {
        uint64_t k = s->paths[i].ks[0];
        file_of(err, sizeof err, k, "err");
        file_of(json, sizeof json, k, "json");
        pid = start(s, k, true, old_mask);
        if (pid < 0)
            break;
        int status = wait_for(pid, timeout, &sig, &hung);
        (void)sweep_refine(&s->paths[i], &base, status, sig, hung, err, json);
        (void)unlink(err);
        (void)unlink(json);
    }
    report_unload(&base);
}

/* ---- the summary's files ---------------------------------------------------------------- */

static bool write_file(const sweep_t *s, const char *path,
                       void (*render)(const sweep_t *, mt_buf_t *))
{
    int fd = strcmp(path, "-") == 0
                 ? STDOUT_FILENO
                 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, path,
                errno == ELOOP ? "it is a symbolic link, which memtrack does not follow"
                               : strerror(errno));
        return false;
    }
    mt_buf_t b;
    mt_buf_init(&b, fd);
    render(s, &b);
    mt_buf_flush(&b);
    int err = b.error;
    if (fd != STDOUT_FILENO && close(fd) != 0 && err == 0)
        err = errno;
    if (err != 0)
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(err));
    return err == 0;
}

/* ---- the command ------------------------------------------------------------------------ */

static int parse_args(sweep_t *s, int argc, char **argv)
{
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (strcmp(a, "--track-named") == 0) {
            s->track_named = true;
            continue;
        }
        if (v == NULL)
            return usage(a, "needs a value");
        i++;
        if (strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) {
            if (!number(a, v, 1, &n))
                return 2;
            *(a[2] == 'f' ? &s->from : &s->to) = n;
        } else if (strcmp(a, "--jobs") == 0 || strcmp(a, "--timeout") == 0) {
            if (!number(a, v, 1, &n) || n > 100000)
                return n > 100000 ? usage("too large a number for", a) : 2;
            *(a[2] == 'j' ? &s->jobs : &s->timeout) = (unsigned)n;
        } else if (strcmp(a, "--exitcode") == 0) {
            if (!number(a, v, 0, &n) || n > 255)
                return n > 255 ? usage("--exitcode takes a number from 0 to 255, not", v) : 2;
            s->exitcode = (int)n;
        } else if (strcmp(a, "--json") == 0) {
            s->json = v;
        } else if (strcmp(a, "--sarif") == 0) {
            s->sarif = v;
        } else if (strcmp(a, "--html") == 0) {
            s->html = v;
        } else if (strcmp(a, "--options") == 0) {
            s->options = v;
        } else if (strcmp(a, "--user-options") == 0) {
            s->user_options = v;
        } else if (strcmp(a, "--preload") == 0) {
            s->preload = v;
        } else if (strcmp(a, "--self") == 0) {
            s->self = v;
        } else {
            return usage("unknown option", a);
        }
    }
    if (i + 1 >= argc)
        return usage("which program? memtrack run --fail-sweep -- PROG ARGS...", NULL);
    if (s->from != 0 && s->to != 0 && s->to < s->from)
        return usage("--to comes before --from", NULL);
    s->prog = argv + i + 1;
    return 0;
}

/* Options the sweep sets itself: the user's would fight it. */
static int check_options(const sweep_t *s)
{
    static const char *const own[] = {"fail_nth=", "fail_from=", "fail_rate=", "fail_count="};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        const char *o = s->options;
        for (const char *at = strstr(o, own[i]); at != NULL; at = strstr(at + 1, own[i]))
            if (at == o || at[-1] == ':' || at[-1] == ',')
                return usage("the sweep chooses the failing allocation itself: leave out of the "
                             "options",
                             own[i]);
    }
    return 0;
}

int tool_fail_sweep(int argc, char **argv)
{
    sweep_t s;
    memset(&s, 0, sizeof s);
    s.options = "";
    s.user_options = "";
    s.self = "memtrack";
    s.exitcode = 23;
    int bad = parse_args(&s, argc, argv);
    if (bad == 0)
        bad = check_options(&s);
    if (bad != 0)
        return bad;
    if (s.jobs == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        s.jobs = cores > 0 ? (unsigned)cores : 1;
    }
    if (getcwd(s.cwd, sizeof s.cwd) == NULL)
        s.cwd[0] = '\0';
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/memtrack-sweep.XXXXXX",
             dir != NULL && dir[0] != '\0' && strlen(dir) < 400 && strpbrk(dir, ":,") == NULL
                 ? dir
                 : "/tmp"); /* (a report's path goes into MEMTRACK_OPTIONS) */
    if (mkdtemp(tmp) == NULL) {
        tmp[0] = '\0';
        return usage("cannot make a temporary directory:", strerror(errno));
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
    sigset_t old_mask;
    sigprocmask(SIG_SETMASK, NULL, &old_mask);
    int status = 2;
    double took = 0, t0 = now();
    if (!keep_stdin()) {
        status = usage("cannot keep standard input for every run:", strerror(errno));
    } else if (count(&s, &old_mask, &took) == 0) {
        status = 2;
    } else {
        if (s.from == 0)
            s.from = 1;
        if (s.to == 0 || s.to > s.counted)
            s.to = s.counted;
        if (s.from > s.to) {
            fprintf(stderr, "%s: --fail-sweep: --from %llu is past the %llu allocations counted\n",
                    prog, (unsigned long long)s.from, (unsigned long long)s.counted);
        } else {
            double timeout = s.timeout != 0 ? s.timeout : took * 10 > 10 ? took * 10 : 10;
            bool done = sweep_all(&s, &old_mask, timeout);
            if (done && s.npaths != 0)
                refine(&s, &old_mask, timeout);
            done &= stop_signal == 0;
            s.seconds = now() - t0;
            if (done) {
                sweep_sort(&s);
                mt_buf_t b;
                mt_buf_init(&b, STDERR_FILENO);
                sweep_render_text(&s, &b);
                mt_buf_flush(&b);
                bool ok = true;
                ok &= s.json == NULL || write_file(&s, s.json, sweep_render_json);
                ok &= s.sarif == NULL || write_file(&s, s.sarif, sweep_render_sarif);
                ok &= s.html == NULL || write_file(&s, s.html, sweep_render_html);
                status = !ok ? 2 : s.npaths != 0 ? s.exitcode : 0;
            } else {
                status = 128 + stop_signal;
            }
        }
    }
    sweep_free(&s);
    if (s.baseline.root != NULL)
        report_unload(&s.baseline);
    remove_tmp();
    return status;
}
