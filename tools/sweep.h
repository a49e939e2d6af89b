/* sweep.h - memtrack run --fail-sweep: a program run once to count its allocations, then
 * once per allocation k with the k-th made to fail, and the failure paths that crashed,
 * hung, leaked or erred, each with the command that runs it again.
 *
 *   memtrack-report --fail-sweep [--from N] [--to M] [--jobs J] [--timeout S]
 *       [--json F] [--sarif F] [--html F] [--exitcode N] [--options OPTS]
 *       [--user-options OPTS] [--preload LIB] [--track-named] [--self CMD] -- PROG ARGS...
 *
 * sweep.c runs them, sweep_outcome.c tells how each run ended and groups the runs into
 * paths, sweep_render.c writes the summary (text, JSON, SARIF, HTML).
 */
#ifndef MT_TOOLS_SWEEP_H
#define MT_TOOLS_SWEEP_H

#include "report_read.h"

/* How a failure path went wrong, in the order the summary lists them. */
typedef enum { PATH_CRASH, PATH_HANG, PATH_LEAK, PATH_ERROR, PATH_KINDS } path_kind_t;
extern const char *const sweep_path_names[PATH_KINDS]; /* "crash", "hang", "leak", "error" */

#define SWEEP_KS_MAX 16 /* the first runs of a path that are listed */

/* One failure path: the runs whose failing call had one place and stack and that went
 * wrong the same way. */
typedef struct sweep_path {
    path_kind_t kind;
    char *key;                 /* the failing call's place and stack, as compared */
    const char *alloc;         /* the failing call's kind: "malloc", "new"... (NULL: not known) */
    uint64_t bytes;            /* what it asked for */
    mt_place_t failed;         /* the failing call and its stack (place NULL-filled: not known) */
    uint64_t ks[SWEEP_KS_MAX]; /* the allocations whose failure took this path, ascending */
    unsigned nks;
    uint64_t runs;         /* how many did */
    int status;            /* the first run's exit status; 128 + N when signal N ended it */
    const char *signal;    /* crash: "SIGSEGV"...; hang: "SIGKILL" (killed at the timeout) */
    mt_place_t crash;      /* crash: where, and its callers (file and pc 0: not known) */
    report_file_t *report; /* leak, error: the first run's report */
    mt_leak_site_t *leaks; /* leak: the leak groups only the failure made */
    size_t nleaks;
    const mt_report_error_t **errors; /* error: the heap errors only the failure made */
    size_t nerrors;
    char *text; /* the first run's standard error, which the places above borrow from */
} sweep_path_t;

typedef struct sweep {
    /* what was asked */
    char **prog;              /* PROG ARGS..., NULL-terminated */
    const char *options;      /* MEMTRACK_OPTIONS of every run, before the sweep's own */
    const char *user_options; /* what the user gave (environment and --options), for reruns */
    const char *preload;      /* LD_PRELOAD of every run, or NULL */
    const char *self;         /* the memtrack command, for reruns */
    bool track_named;         /* --preload's program named: track_pid its pid */
    bool symbols;             /* every run symbolized: fail_fn or fail_site needs names */
    uint64_t from, to;        /* 0: the first, the last */
    unsigned jobs, timeout;   /* 0: the machine's cores; a timeout from the first run's time */
    int exitcode;
    const char *json, *sarif, *html;
    /* what was found */
    char cwd[4096];
    uint64_t counted; /* the program's allocations, as fail_nth numbers them */
    bool window;      /* counted inside memtrack_fail_begin() windows only (fail_window=1) */
    uint64_t runs, clean, unreached;
    double seconds;
    report_file_t baseline; /* the first run's report */
    sweep_path_t *paths;
    size_t npaths, paths_size;
} sweep_t;

#define SWEEP_PROG "memtrack run" /* what the sweep's messages start with */

/* memtrack-report --fail-sweep ... (above): 0 when every path was clean, the exit code
 * when some was not, 2 on bad usage or when the program cannot be swept. */
int tool_fail_sweep(int argc, char **argv);

/* sweep_runs.c: the runs. Makes the temporary directory, sets the stop signals' handlers
 * and keeps standard input for every run; false after a message. */
bool sweep_runs_begin(void);
/* Removes the temporary directory. */
void sweep_runs_end(void);
/* The first run: s->counted, s->window and the baseline; 0 after a message when the
 * program cannot be swept. *took: how long it ran. */
int sweep_count(sweep_t *s, double *took);
/* Every allocation from s->from to s->to, runs killed after timeout seconds; false when
 * a stop signal ended it. */
bool sweep_all(sweep_t *s, double timeout);
/* The paths found run again with symbols (sweep_refine). */
void sweep_again(sweep_t *s, double timeout);
/* The stop signal that ended the sweep, 0 if none. */
int sweep_stopped(void);
/* Seconds on a monotonic clock. */
double sweep_now(void);

/* sweep_outcome.c: judges the run that failed allocation k (status as memtrack run gives
 * it; signal: what ended it, 0 if none; hung: killed at the timeout) from its standard
 * error and JSON report, and adds it to its path, or counts it clean or unreached. */
void sweep_judge(sweep_t *s, uint64_t k, int status, int signal, bool hung, const char *err_path,
                 const char *json_path);
/* Judges again path p's first run, made again with symbols (the sweep's runs take none:
 * symbolizing at every run cost most of its time), against baseline (the first run's
 * report, with symbols too): when it went the same way, p shows it instead; false when
 * not (p is left as it was). */
bool sweep_refine(sweep_path_t *p, const report_file_t *baseline, int status, int signal, bool hung,
                  const char *err_path, const char *json_path);
/* Orders the paths as the summary lists them: crashes, hangs, leaks, errors, each kind by
 * its first allocation. */
void sweep_sort(sweep_t *s);
/* Frees the paths. */
void sweep_free(sweep_t *s);

/* sweep_render.c: the command that runs path p's first failure again. */
void sweep_rerun(const sweep_t *s, const sweep_path_t *p, mt_buf_t *b);
/* The summary: text (to stderr), JSON, SARIF, HTML. */
void sweep_render_text(const sweep_t *s, mt_buf_t *b);
void sweep_render_json(const sweep_t *s, mt_buf_t *b);
void sweep_render_sarif(const sweep_t *s, mt_buf_t *b);
void sweep_render_html(const sweep_t *s, mt_buf_t *b);

#endif /* MT_TOOLS_SWEEP_H */
