/* sweep_outcome.c - how one run of a fail sweep ended, told from what it left: what ended
 * it (a signal, the timeout), the lines memtrack printed on its standard error (the
 * fail_nth=K line that names the call that got NULL, and a crash report's place, both
 * with their stacks: a crashed run writes no JSON report), and its JSON report, compared
 * with the first run's for the leaks and heap errors that only the failure made.
 *
 * Runs that went wrong the same way from the same failing call (its place and stack, as
 * --diff compares sites: by line, or by module and offset for code known by address) are
 * one path, listed once with the allocations that took it. Its first run is made again with
 * symbols (the sweep's runs take none), and the path shows that one (sweep_refine).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/runtime.h"
#include "records/kinds.h"
#include "site_match.h"
#include "sweep.h"

const char *const sweep_path_names[PATH_KINDS] = {"crash", "hang", "leak", "error"};

/* ---- memtrack's lines read back ----------------------------------------------------------- */

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t size = 1 << 14, len = 0;
    char *text = malloc(size);
    for (size_t n; text != NULL && (n = fread(text + len, 1, size - len - 1, f)) > 0;) {
        len += n;
        if (len + 1 == size) {
            char *bigger = realloc(text, size * 2);
            if (bigger == NULL) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            size *= 2;
        }
    }
    fclose(f);
    if (text != NULL)
        text[len] = '\0';
    return text;
}

/* mt_buf_place's words read back into a place: "FILE:LINE in FUNC()", "FILE:LINE",
 * "0xADDR in SYMBOL+0xOFF (MODULE)" and its shorter forms, "an unknown site". text is cut
 * where the place's strings end: they point into it. */
static void parse_place(char *text, mt_place_t *p)
{
    memset(p, 0, sizeof *p);
    p->kind_id = MT_KIND_NONE;
    if (strncmp(text, "0x", 2) == 0) {
        char *rest;
        p->pc = strtoull(text, &rest, 16);
        size_t n = strlen(rest);
        if (n >= 3 && rest[n - 1] == ')') {
            char *open = strrchr(rest, '(');
            if (open != NULL && open > rest && open[-1] == ' ') {
                rest[n - 1] = '\0';
                p->module = open + 1;
                open[-1] = '\0';
            }
        }
        if (strncmp(rest, " in ", 4) == 0) {
            p->func = rest + 4;
            char *plus = strrchr(rest + 4, '+');
            if (plus != NULL && strncmp(plus, "+0x", 3) == 0) {
                *plus = '\0';
                p->offset = strtoull(plus + 1, NULL, 16);
            }
        }
        return;
    }
    /* FILE:LINE, the first ':' followed by digits and then nothing or " in " */
    for (char *c = strchr(text, ':'); c != NULL; c = strchr(c + 1, ':')) {
        size_t digits = strspn(c + 1, "0123456789");
        char *after = c + 1 + digits;
        if (digits == 0 || (*after != '\0' && strncmp(after, " in ", 4) != 0))
            continue;
        p->line = strtol(c + 1, NULL, 10);
        *c = '\0';
        p->file = text;
        if (*after != '\0') {
            char *func = after + 4;
            size_t n = strlen(func);
            if (n >= 2 && strcmp(func + n - 2, "()") == 0)
                func[n - 2] = '\0';
            p->func = func;
        }
        return;
    }
}

/* A line of memtrack's, without its "memtrack: " (NULL for the program's own lines). */
static char *ours(char *line)
{
    return strncmp(line, "memtrack: ", 10) == 0 ? line + 10 : NULL;
}

/* The callers printed under a place, lines[*i] on: "      from PLACE" and "      inlined
 * into PLACE" (mt_buf_stack_lines). The frames are the place's own (freed with it). */
static void parse_stack(char **lines, size_t n, size_t *i, mt_place_t *p)
{
    size_t count = 0;
    while (*i + count < n) {
        char *l = ours(lines[*i + count]);
        if (l == NULL || l[0] != ' ')
            break;
        l += strspn(l, " ");
        if (strncmp(l, "from ", 5) != 0 && strncmp(l, "inlined into ", 13) != 0)
            break;
        count++;
    }
    if (count == 0)
        return;
    mt_frame_t *frames = calloc(count, sizeof *frames);
    if (frames == NULL)
        return;
    for (size_t k = 0; k < count; k++) {
        char *l = ours(lines[*i + k]);
        l += strspn(l, " ");
        bool inlined = strncmp(l, "inlined into ", 13) == 0;
        mt_place_t q;
        parse_place(l + (inlined ? 13 : 5), &q);
        frames[k] = (mt_frame_t){.pc = q.pc,
                                 .func = q.func,
                                 .file = q.file,
                                 .line = q.line,
                                 .module = q.module,
                                 .offset = q.offset};
        if (inlined && k == 0)
            p->inlined = true;
        else if (inlined)
            frames[k - 1].inlined = true;
    }
    p->stack.frames = frames;
    p->stack.nframes = count;
    *i += count;
}

/* What a run's standard error says. */
typedef struct said {
    bool reached;      /* the fail_nth line: the allocation was made, and failed */
    const char *alloc; /* its kind */
    uint64_t bytes;
    mt_place_t failed;  /* the call that got NULL */
    const char *signal; /* the crash report's signal, or NULL */
    mt_place_t crash;   /* where it crashed (file and pc 0: not said) */
} said_t;

/* "fail_nth=K: malloc of 24 bytes at PLACE returns NULL, on purpose" */
static void parse_failed(char *l, said_t *out)
{
    char *of = strstr(l, " of "), *at = of != NULL ? strstr(of, " at ") : NULL;
    char *end = at != NULL ? strstr(at, " returns NULL, on purpose") : NULL;
    if (end == NULL)
        return;
    *of = '\0';
    *end = '\0';
    out->reached = true;
    out->alloc = strchr(l, ' ') != NULL ? strchr(l, ' ') + 1 : l;
    out->bytes = strtoull(of + 4, NULL, 10);
    parse_place(at + 4, &out->failed);
    out->failed.kind = out->alloc;
    out->failed.kind_id = mt_kind_named(out->alloc);
}

/* "CRASH: SIGSEGV at address 0x0 in prog (pid 7), at PLACE" */
static void parse_crash(char *l, said_t *out)
{
    char *sig = l + strlen("CRASH: ");
    char *space = strchr(sig, ' ');
    char *at = strstr(sig, "), at ");
    if (space != NULL)
        *space = '\0';
    out->signal = sig;
    if (at != NULL && space != NULL && at > space)
        parse_place(at + 6, &out->crash);
}

/* Reads what memtrack said in text (cut into lines: the places point into it). */
static void read_said(char *text, said_t *out)
{
    memset(out, 0, sizeof *out);
    size_t n = 0, size = 0;
    char **lines = NULL;
    for (char *l = text; l != NULL && *l != '\0';) {
        char *nl = strchr(l, '\n');
        if (nl != NULL)
            *nl = '\0';
        if (n == size) {
            size = size != 0 ? 2 * size : 256;
            char **bigger = realloc(lines, size * sizeof *lines);
            if (bigger == NULL)
                break;
            lines = bigger;
        }
        lines[n++] = l;
        l = nl != NULL ? nl + 1 : NULL;
    }
    for (size_t i = 0; i < n; i++) {
        char *l = ours(lines[i]);
        if (l != NULL && !out->reached && strncmp(l, "fail_nth=", 9) == 0) {
            parse_failed(l, out);
            i++;
            parse_stack(lines, n, &i, &out->failed);
            i--;
        } else if (l != NULL && out->signal == NULL && strncmp(l, "CRASH: ", 7) == 0) {
            parse_crash(l, out);
            i++;
            parse_stack(lines, n, &i, &out->crash);
            i--;
        }
    }
    free(lines);
}

/* ---- paths ------------------------------------------------------------------------------- */

/* The failing call as compared: each frame by line, or by module and offset. */
static char *key_of(const mt_place_t *p)
{
    size_t size = 256 + 64 * p->stack.nframes, len = 0;
    char *key = malloc(size);
    for (size_t i = 0; key != NULL && i <= p->stack.nframes; i++) {
        mt_frame_t f = {0};
        if (i == 0) {
            f.file = p->file, f.line = p->line, f.func = p->func, f.pc = p->pc;
        } else {
            f = p->stack.frames[i - 1];
        }
        char item[1024];
        if (f.file != NULL)
            snprintf(item, sizeof item, "%s:%ld:%s\n", f.file, f.line, f.func ? f.func : "");
        else /* (the runs take no address randomization: an address is the same in each) */
            snprintf(item, sizeof item, "%llx\n", (unsigned long long)f.pc);
        size_t n = strlen(item);
        if (len + n + 1 > size) {
            char *bigger = realloc(key, 2 * (len + n + 1));
            if (bigger == NULL) {
                free(key);
                return NULL;
            }
            key = bigger;
            size = 2 * (len + n + 1);
        }
        memcpy(key + len, item, n + 1);
        len += n;
    }
    return key;
}

static void free_place(mt_place_t *p)
{
    free((void *)p->stack.frames);
    p->stack.frames = NULL;
    p->stack.nframes = 0;
}

static void add_k(sweep_path_t *p, uint64_t k)
{
    p->runs++;
    if (p->nks < SWEEP_KS_MAX)
        p->ks[p->nks++] = k; /* (runs are judged in order: ascending) */
}

/* The same site in two runs of the sweep: as --diff has it, and for code known by address
 * alone (the sweep's runs are not symbolized), the same address: the runs take no address
 * randomization. */
static bool same_site(const mt_place_t *a, const mt_place_t *b)
{
    if (a->file == NULL && b->file == NULL && a->pc != b->pc)
        return false;
    return site_same(a, b);
}

/* The leak groups of r that baseline does not have, or has fewer blocks of, moved to the
 * front of r's sites (largest first, as they were); how many. The runs list the blocks of
 * the system's libraries too (system_leaks=1: a Debian library's leak under --preload, a
 * FILE an error path forgot), but not those the C runtime keeps for itself: an error path
 * that prints a message makes the C library load its locale's catalogs, and keep them. */
static size_t new_leaks(const mt_report_t *base, mt_report_t *r)
{
    bool *used = calloc(base->nsites + 1, sizeof *used);
    size_t n = 0;
    for (size_t i = 0; used != NULL && i < r->nsites; i++) {
        mt_leak_site_t site = r->sites[i];
        if (site.where.file == NULL && site.where.module != NULL &&
            mt_module_is_runtime(site.where.module))
            continue;
        for (size_t j = 0; j < base->nsites; j++) {
            if (used[j] || !same_site(&base->sites[j].where, &site.where))
                continue;
            used[j] = true;
            site.blocks =
                site.blocks > base->sites[j].blocks ? site.blocks - base->sites[j].blocks : 0;
            site.bytes = site.bytes > base->sites[j].bytes ? site.bytes - base->sites[j].bytes : 0;
            break;
        }
        if (site.blocks != 0)
            r->sites[n++] = site;
    }
    free(used);
    return n;
}

/* The heap errors of r that baseline did not find (kind, block's site and finder). */
static size_t new_errors(const mt_report_t *base, const mt_report_t *r,
                         const mt_report_error_t **out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nerror_list; i++) {
        const mt_report_error_t *e = &r->error_list[i];
        bool known = false;
        for (size_t j = 0; j < base->nerror_list && !known; j++) {
            const mt_report_error_t *b = &base->error_list[j];
            known = site_str_same(e->kind, b->kind) && same_site(&e->alloc, &b->alloc) &&
                    same_site(&e->found, &b->found);
        }
        if (!known)
            out[n++] = e;
    }
    return n;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    default: return "a signal";
    }
}

/* How one run ended: what it said, and (when it ended by itself) its report with the leaks
 * and errors the baseline has not. What a path takes is set to NULL here. */
typedef struct outcome {
    said_t said;
    char *text; /* its standard error, which said's places borrow from */
    int status;
    bool crashed, hung, unreported;
    report_file_t *report;
    size_t nleaks;                    /* report's sites[0..nleaks): leaked only here */
    const mt_report_error_t **errors; /* into report */
    size_t nerrors;
} outcome_t;

static void outcome_free(outcome_t *o)
{
    free_place(&o->said.failed);
    free_place(&o->said.crash);
    free(o->text);
    free(o->errors);
    if (o->report != NULL) {
        report_unload(o->report);
        free(o->report);
    }
    memset(o, 0, sizeof *o);
}

static void judge_run(const report_file_t *baseline, int status, int signal, bool hung,
                      const char *err_path, const char *json_path, outcome_t *o)
{
    memset(o, 0, sizeof *o);
    o->status = status;
    o->text = read_text(err_path);
    read_said(o->text != NULL ? o->text : (char *)"", &o->said);
    o->hung = hung;
    o->crashed = !hung && signal != 0;
    if (hung || signal != 0) {
        if (o->said.signal == NULL || hung)
            o->said.signal = signal_name(hung ? SIGKILL : signal);
        return;
    }
    if (!o->said.reached)
        return;
    o->report = calloc(1, sizeof *o->report);
    if (o->report == NULL || !report_load(json_path, o->report, NULL)) {
        free(o->report);
        o->report = NULL;
        o->unreported = true; /* it made the allocation, and then wrote no report */
        return;
    }
    mt_report_t *r = &o->report->model;
    o->errors = calloc(r->nerror_list + 1, sizeof *o->errors);
    o->nleaks = new_leaks(&baseline->model, r);
    o->nerrors = o->errors != NULL ? new_errors(&baseline->model, r, o->errors) : 0;
}

/* Whether the run went wrong as a path of kind does. */
static bool went(const outcome_t *o, path_kind_t kind)
{
    switch (kind) {
    case PATH_CRASH: return o->crashed;
    case PATH_HANG: return o->hung;
    case PATH_LEAK: return o->nleaks != 0;
    case PATH_ERROR: return o->nerrors != 0 || o->unreported;
    case PATH_KINDS: break;
    }
    return false;
}

/* Makes p show run o: its places, text and report (taken from o). */
static void path_take(sweep_path_t *p, outcome_t *o)
{
    free_place(&p->failed);
    free_place(&p->crash);
    free(p->text);
    free(p->errors);
    if (p->report != NULL) {
        report_unload(p->report);
        free(p->report);
    }
    p->alloc = o->said.alloc;
    p->bytes = o->said.bytes;
    p->failed = o->said.failed;
    p->crash = o->said.crash;
    p->signal = o->said.signal;
    p->status = o->status;
    p->text = o->text;
    p->report = o->report;
    p->leaks = p->kind == PATH_LEAK && o->report != NULL ? o->report->model.sites : NULL;
    p->nleaks = p->kind == PATH_LEAK ? o->nleaks : 0;
    p->errors = p->kind == PATH_ERROR ? o->errors : NULL;
    p->nerrors = p->kind == PATH_ERROR ? o->nerrors : 0;
    if (p->kind == PATH_ERROR)
        o->errors = NULL;
    memset(&o->said.failed, 0, sizeof o->said.failed);
    memset(&o->said.crash, 0, sizeof o->said.crash);
    o->text = NULL;
    o->report = NULL;
}

/* Adds run k to the path of kind and its failing call; a new path takes o. */
static void add_to_path(sweep_t *s, path_kind_t kind, outcome_t *o, uint64_t k)
{
    char *key = key_of(&o->said.failed);
    if (key == NULL)
        return;
    for (size_t i = 0; i < s->npaths; i++) {
        if (s->paths[i].kind == kind && strcmp(s->paths[i].key, key) == 0) {
            free(key);
            add_k(&s->paths[i], k);
            return;
        }
    }
    if (s->npaths == s->paths_size) {
        size_t size = s->paths_size != 0 ? 2 * s->paths_size : 16;
        sweep_path_t *bigger = realloc(s->paths, size * sizeof *bigger);
        if (bigger == NULL) {
            free(key);
            return;
        }
        s->paths = bigger;
        s->paths_size = size;
    }
    sweep_path_t *p = &s->paths[s->npaths++];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->key = key;
    path_take(p, o);
    add_k(p, k);
}

void sweep_judge(sweep_t *s, uint64_t k, int status, int signal, bool hung, const char *err_path,
                 const char *json_path)
{
    s->runs++;
    outcome_t o;
    judge_run(&s->baseline, status, signal, hung, err_path, json_path, &o);
    bool wrong = false, reached = o.said.reached;
    for (int kind = 0; kind < PATH_KINDS; kind++) {
        if (!went(&o, (path_kind_t)kind))
            continue;
        if (wrong) { /* a second path of one run (a leak and an error): read it again */
            outcome_free(&o);
            judge_run(&s->baseline, status, signal, hung, err_path, json_path, &o);
        }
        wrong = true;
        add_to_path(s, (path_kind_t)kind, &o, k);
    }
    if (!wrong && !reached)
        s->unreached++; /* this run made fewer allocations than the first */
    else if (!wrong)
        s->clean++;
    outcome_free(&o);
}

bool sweep_refine(sweep_path_t *p, const report_file_t *baseline, int status, int signal, bool hung,
                  const char *err_path, const char *json_path)
{
    outcome_t o;
    judge_run(baseline, status, signal, hung, err_path, json_path, &o);
    bool same = went(&o, p->kind);
    if (same)
        path_take(p, &o);
    outcome_free(&o);
    return same;
}

/* Crashes first, then hangs, leaks and errors; each kind by its first allocation. */
static int by_kind(const void *x, const void *y)
{
    const sweep_path_t *a = x, *b = y;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return a->ks[0] < b->ks[0] ? -1 : a->ks[0] > b->ks[0];
}

void sweep_sort(sweep_t *s)
{
    if (s->npaths > 1)
        qsort(s->paths, s->npaths, sizeof *s->paths, by_kind);
}

void sweep_free(sweep_t *s)
{
    for (size_t i = 0; i < s->npaths; i++) {
        sweep_path_t *p = &s->paths[i];
        free(p->key);
        free_place(&p->failed);
        free_place(&p->crash);
        free(p->errors);
        if (p->report != NULL) {
            report_unload(p->report);
            free(p->report);
        }
        free(p->text);
    }
    free(s->paths);
    s->paths = NULL;
    s->npaths = 0;
}
