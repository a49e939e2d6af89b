/* sweep.c - memtrack run --fail-sweep (sweep.h), the command: its arguments, the order of
 * its steps (the count, every allocation in turn, the paths again with symbols: the runs are
 * sweep_runs.c's) and the summary's files (written by sweep_render.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out_file.h"
#include "sweep.h"

static const char *prog = SWEEP_PROG;

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

/* ---- the summary's files ---------------------------------------------------------------- */

static bool write_file(const sweep_t *s, const char *path,
                       void (*render)(const sweep_t *, mt_buf_t *))
{
    mt_buf_t b;
    if (!out_file_open(&b, path, prog))
        return false;
    render(s, &b);
    return out_file_close(&b, path, prog);
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
    s.symbols = strstr(s.options, "fail_fn=") != NULL || strstr(s.options, "fail_site=") != NULL;
    if (getcwd(s.cwd, sizeof s.cwd) == NULL)
        s.cwd[0] = '\0';
    int status = 2;
    double took = 0, t0 = sweep_now();
    if (sweep_runs_begin() && sweep_count(&s, &took)) {
        if (s.from == 0)
            s.from = 1;
        if (s.to == 0 || s.to > s.counted)
            s.to = s.counted;
        if (s.from > s.to) {
            fprintf(stderr, "%s: --fail-sweep: --from %llu is past the %llu allocations counted\n",
                    prog, (unsigned long long)s.from, (unsigned long long)s.counted);
        } else {
            /* ten times the first run's time, at least ten seconds (--timeout) */
            double timeout = s.timeout != 0 ? s.timeout : took * 10 > 10 ? took * 10 : 10;
            bool done = sweep_all(&s, timeout);
            if (done && s.npaths != 0)
                sweep_again(&s, timeout);
            done &= sweep_stopped() == 0;
            s.seconds = sweep_now() - t0;
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
                status = 128 + sweep_stopped();
            }
        }
    }
    sweep_free(&s);
    if (s.baseline.root != NULL)
        report_unload(&s.baseline);
    sweep_runs_end();
    return status;
}
