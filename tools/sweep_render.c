/* sweep_render.c - the fail sweep's summary (sweep.h): the text on standard error, and the
 * JSON (tools/fail-sweep.schema.json), SARIF and HTML files --json, --sarif and --html ask
 * for. Each failure path is headlined at the call that got NULL, the line whose error path
 * is to fix, with its stack; then what went wrong (where it crashed, the leaks or errors
 * only that failure made) and the command that runs that failure again. Places are worded
 * and written as the reports' are (errors/format.c, render_json.c, render_sarif.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "errors/format.h"
#include "sweep.h"

/* ---- the command that runs a failure again ------------------------------------------------ */

/* An argument as a shell reads it back: as it is when it is plain, else in single quotes. */
static void shell_word(mt_buf_t *b, const char *w)
{
    bool plain = w[0] != '\0';
    for (const char *c = w; *c != '\0' && plain; c++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=+,@%-",
                       *c) != NULL;
    if (plain) {
        mt_buf_text(b, w);
        return;
    }
    mt_buf_char(b, '\'');
    for (const char *c = w; *c != '\0'; c++) {
        if (*c == '\'')
            mt_buf_str(b, "'\\''");
        else
            mt_buf_strn(b, c, 1);
    }
    mt_buf_char(b, '\'');
}

void sweep_rerun(const sweep_t *s, const sweep_path_t *p, mt_buf_t *b)
{
    /* A leak made inside a library of the system's (known by address alone: a Debian
     * library under --preload) is listed only with system_leaks=1. */
    bool system = false;
    for (size_t i = 0; i < p->nleaks; i++)
        system |= p->leaks[i].where.file == NULL;
    char options[8192];
    snprintf(options, sizeof options, "%s%sfail_nth=%llu%s%s", s->user_options,
             s->user_options[0] != '\0' ? ":" : "", (unsigned long long)p->ks[0],
             s->window ? ":fail_window=1" : "", system ? ":system_leaks=1" : "");
    mt_buf_str(b, "MEMTRACK_OPTIONS=");
    shell_word(b, options);
    mt_buf_char(b, ' ');
    shell_word(b, s->self);
    mt_buf_str(b, s->preload != NULL ? " run --preload --" : " run --");
    for (char **a = s->prog; *a != NULL; a++) {
        mt_buf_char(b, ' ');
        shell_word(b, *a);
    }
}

/* ---- text --------------------------------------------------------------------------------- */

static const char *const headlines[PATH_KINDS] = {"crash", "hang", "leak", "heap error"};

static void say_allocations(mt_buf_t *b, const sweep_path_t *p)
{
    mt_buf_str(b, p->nks > 1 ? "allocations " : "allocation ");
    for (unsigned i = 0; i < p->nks; i++) {
        mt_buf_str(b, i == 0 ? "" : ", ");
        mt_buf_u64(b, p->ks[i]);
    }
    if (p->runs > p->nks) {
        mt_buf_fmt(b, " and %" PRIu64 " more", p->runs - p->nks);
    }
}

/* "malloc at lib.c:12 in f()", or what is known of it */
static void say_failed(mt_buf_t *b, const sweep_path_t *p)
{
    mt_buf_str(b, p->alloc != NULL ? p->alloc : "the allocation");
    if (p->failed.file != NULL || p->failed.pc != 0) {
        mt_buf_str(b, " at ");
        mt_buf_place(b, &p->failed);
    }
}

static void text_path(const sweep_t *s, const sweep_path_t *p, mt_buf_t *b)
{
    mt_buf_line(b);
    mt_buf_str(b, headlines[p->kind]);
    if (p->kind == PATH_CRASH) {
        mt_buf_fmt(b, " (%s)", p->signal != NULL ? p->signal : "signal");
    }
    if (p->alloc == NULL) {
        mt_buf_str(b, " in a run whose allocation did not fail (it made fewer): ");
    } else {
        mt_buf_str(b, " when ");
        say_failed(b, p);
        mt_buf_str(b, " returned NULL: ");
    }
    say_allocations(b, p);
    mt_buf_char(b, '\n');
    mt_buf_stack_lines(b, &p->failed, "      ");
    switch (p->kind) {
    case PATH_CRASH:
        if (p->crash.file != NULL || p->crash.pc != 0) {
            mt_buf_line(b);
            mt_buf_str(b, "  crashed at ");
            mt_buf_place(b, &p->crash);
            mt_buf_char(b, '\n');
            mt_buf_stack_lines(b, &p->crash, "      ");
        }
        break;
    case PATH_HANG:
        mt_buf_line(b);
        mt_buf_str(b, "  still running at the timeout: killed\n");
        break;
    case PATH_LEAK:
        for (size_t i = 0; i < p->nleaks; i++) {
            const mt_leak_site_t *l = &p->leaks[i];
            mt_buf_line(b);
            mt_buf_str(b, "  ");
            mt_buf_count(b, l->bytes, "byte", "bytes");
            mt_buf_str(b, " in ");
            mt_buf_count(b, l->blocks, "block", "blocks");
            mt_buf_str(b, " leaked, allocated at ");
            mt_buf_place(b, &l->where);
            mt_buf_fmt(b, " by %s\n", l->where.kind != NULL ? l->where.kind : "?");
            mt_buf_stack_lines(b, &l->where, "      ");
        }
        break;
    case PATH_ERROR:
        for (size_t i = 0; i < p->nerrors; i++) {
            mt_buf_line(b);
            mt_buf_str(b, "  ");
            mt_buf_error_summary(b, p->errors[i]);
            mt_buf_char(b, '\n');
        }
        if (p->nerrors == 0) {
            mt_buf_line(b);
            mt_buf_fmt(
                b,
                "  then it wrote no report (did it end with _exit or exec?), exit status %" PRIu64
                "\n",
                (uint64_t)p->status);
        }
        break;
    case PATH_KINDS: break;
    }
    mt_buf_line(b);
    mt_buf_str(b, "  run it again: ");
    sweep_rerun(s, p, b);
    mt_buf_char(b, '\n');
}

void sweep_render_text(const sweep_t *s, mt_buf_t *b)
{
    mt_buf_line(b);
    mt_buf_str(b, "fail sweep of");
    for (char **a = s->prog; *a != NULL; a++) {
        mt_buf_char(b, ' ');
        mt_buf_text(b, *a);
    }
    mt_buf_str(b, ": ");
    if (s->from != 1 || s->to != s->counted) {
        mt_buf_fmt(b, "allocations %" PRIu64 " to %" PRIu64 " of %" PRIu64, s->from, s->to,
                   s->counted);
    } else {
        mt_buf_count(b, s->counted, "allocation", "allocations");
    }
    mt_buf_str(b, s->window ? " inside memtrack_fail_begin() windows" : "");
    mt_buf_str(b, ", each made to fail in turn (");
    mt_buf_count(b, s->runs, "run", "runs");
    mt_buf_fmt(b, ", %" PRIu64 " at a time, %" PRIu64 " s)\n", (uint64_t)s->jobs,
               (uint64_t)(s->seconds + 0.5));
    size_t by_kind[PATH_KINDS] = {0};
    for (size_t i = 0; i < s->npaths; i++)
        by_kind[s->paths[i].kind]++;
    for (size_t i = 0; i < s->npaths; i++) /* (sorted: crashes first, then hangs...) */
        text_path(s, &s->paths[i], b);
    mt_buf_line(b);
    if (s->npaths == 0) {
        mt_buf_str(b, "every failure was handled cleanly");
    } else {
        mt_buf_count(b, s->npaths, "failure path", "failure paths");
        mt_buf_str(b, " went wrong (");
        bool first = true;
        for (int kind = 0; kind < PATH_KINDS; kind++) {
            if (by_kind[kind] == 0)
                continue;
            mt_buf_str(b, first ? "" : ", ");
            first = false;
            mt_buf_fmt(b, "%" PRIu64 " %s%s", by_kind[kind], headlines[kind],
                       by_kind[kind] > 1 ? "s" : "");
        }
        mt_buf_str(b, "); ");
        mt_buf_count(b, s->clean, "run", "runs");
        mt_buf_str(b, " handled the failure cleanly");
    }
    if (s->unreached != 0) {
        mt_buf_fmt(b, "; %" PRIu64 "%s", s->unreached,
                   s->unreached == 1 ? " run made fewer allocations and did not reach its own"
                                     : " runs made fewer allocations and did not reach theirs");
    }
    mt_buf_char(b, '\n');
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void json_u64(mt_buf_t *b, const char *name, uint64_t v)
{
    mt_buf_json_str(b, name);
    mt_buf_fmt(b, ": %" PRIu64 ", ", v);
}

static void json_path(const sweep_t *s, const sweep_path_t *p, mt_buf_t *b)
{
    mt_buf_str(b, "{\"outcome\": ");
    mt_buf_json_str(b, sweep_path_names[p->kind]);
    mt_buf_str(b, ", \"allocations\": [");
    for (unsigned i = 0; i < p->nks; i++) {
        mt_buf_str(b, i == 0 ? "" : ", ");
        mt_buf_u64(b, p->ks[i]);
    }
    mt_buf_str(b, "], ");
    json_u64(b, "runs", p->runs);
    json_u64(b, "status", (uint64_t)p->status);
    mt_buf_str(b, "\"signal\": ");
    mt_buf_json_str(b, p->kind == PATH_CRASH || p->kind == PATH_HANG ? p->signal : NULL);
    mt_buf_str(b, ", \"kind\": ");
    mt_buf_json_str(b, p->alloc);
    mt_buf_str(b, ", ");
    json_u64(b, "bytes", p->bytes);
    mt_buf_str(b, "\"rerun\": ");
    mt_buf_json_begin(b);
    sweep_rerun(s, p, b);
    mt_buf_json_end(b);
    mt_buf_str(b, ",\n      \"failed_at\": ");
    mt_render_json_place(b, &p->failed);
    mt_buf_str(b, ",\n      \"crashed_at\": ");
    mt_render_json_place(b, &p->crash);
    mt_buf_str(b, ",\n      \"leaks\": [");
    for (size_t i = 0; i < p->nleaks; i++) {
        mt_buf_str(b, i == 0 ? "\n        {" : ",\n        {");
        json_u64(b, "bytes", p->leaks[i].bytes);
        json_u64(b, "blocks", p->leaks[i].blocks);
        mt_buf_str(b, "\"allocated_at\": ");
        mt_render_json_place(b, &p->leaks[i].where);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, "],\n      \"errors\": [");
    for (size_t i = 0; i < p->nerrors; i++) {
        const mt_report_error_t *e = p->errors[i];
        mt_buf_str(b, i == 0 ? "\n        {\"kind\": " : ",\n        {\"kind\": ");
        mt_buf_json_str(b, e->kind);
        mt_buf_str(b, ", \"summary\": ");
        mt_buf_json_begin(b);
        mt_buf_error_summary(b, e);
        mt_buf_json_end(b);
        mt_buf_str(b, ", \"allocated_at\": ");
        mt_render_json_place(b, &e->alloc);
        mt_buf_str(b, ", \"found_at\": ");
        mt_render_json_place(b, &e->found);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, "]}");
}

void sweep_render_json(const sweep_t *s, mt_buf_t *b)
{
    mt_buf_str(b, "{\n  \"format\": \"memtrack-fail-sweep\", \"version\": 1, \"memtrack\": ");
    mt_buf_json_str(b, MEMTRACK_VERSION);
    mt_buf_str(b, ",\n  \"program\": [");
    for (char **a = s->prog; *a != NULL; a++) {
        mt_buf_str(b, a == s->prog ? "" : ", ");
        mt_buf_json_str(b, *a);
    }
    mt_buf_str(b, "], \"cwd\": ");
    mt_buf_json_str(b, s->cwd[0] != '\0' ? s->cwd : NULL);
    mt_buf_fmt(b, ", \"preload\": %s,\n  ", s->preload != NULL ? "true" : "false");
    json_u64(b, "allocations", s->counted);
    mt_buf_str(b, "\"window\": ");
    mt_buf_str(b, s->window ? "true, " : "false, ");
    json_u64(b, "from", s->from);
    json_u64(b, "to", s->to);
    json_u64(b, "runs", s->runs);
    json_u64(b, "clean", s->clean);
    json_u64(b, "unreached", s->unreached);
    json_u64(b, "jobs", s->jobs);
    mt_buf_fmt(b, "\"milliseconds\": %" PRIu64 ",\n  \"paths\": [",
               (uint64_t)(s->seconds * 1000 + 0.5));
    for (size_t i = 0; i < s->npaths; i++) {
        mt_buf_str(b, i == 0 ? "\n    " : ",\n    ");
        json_path(s, &s->paths[i], b);
    }
    mt_buf_str(b, s->npaths > 0 ? "\n  ]\n}\n" : "]\n}\n");
}

/* ---- SARIF -------------------------------------------------------------------------------- */

static const char *const rule_levels[PATH_KINDS] = {"error", "error", "warning", "error"};
static const char *const rule_texts[PATH_KINDS] = {
    "The program crashes when this allocation returns NULL",
    "The program hangs when this allocation returns NULL",
    "The program leaks when this allocation returns NULL",
    "The program corrupts its heap when this allocation returns NULL"};

static bool has_place(const mt_place_t *p)
{
    return p->file != NULL || p->module != NULL || p->func != NULL;
}

static void sarif_result(const sweep_t *s, const sweep_path_t *p, mt_buf_t *b, bool first)
{
    const char *cwd = s->cwd[0] != '\0' ? s->cwd : NULL; /* SRCROOT */
    mt_buf_fmt(b, "%s%s\", \"ruleIndex\": %" PRIu64 ", \"level\": \"%s\", \"message\": {\"text\": ",
               first ? "\n        {\"ruleId\": \"fail-path/"
                     : ",\n        {\"ruleId\": \"fail-path/",
               sweep_path_names[p->kind], (uint64_t)p->kind, rule_levels[p->kind]);
    mt_buf_json_begin(b);
    mt_buf_str(b, headlines[p->kind]);
    mt_buf_str(b, " when ");
    say_failed(b, p);
    mt_buf_str(b, " returned NULL (");
    say_allocations(b, p);
    mt_buf_str(b, "); run it again: ");
    sweep_rerun(s, p, b);
    mt_buf_json_end(b);
    mt_buf_str(b, "}, \"locations\": [");
    if (has_place(&p->failed))
        mt_render_sarif_location(b, &p->failed, NULL, -1, cwd);
    mt_buf_str(b, "], \"relatedLocations\": [");
    int id = 1;
    if (p->kind == PATH_CRASH && has_place(&p->crash))
        mt_render_sarif_location(b, &p->crash, "it crashed here", id++, cwd);
    for (size_t i = 0; i < p->nleaks; i++) {
        if (!has_place(&p->leaks[i].where))
            continue;
        mt_buf_str(b, id > 1 ? ", " : "");
        mt_render_sarif_location(b, &p->leaks[i].where, "a block allocated here leaked", id++, cwd);
    }
    for (size_t i = 0; i < p->nerrors; i++) {
        if (!has_place(&p->errors[i]->found))
            continue;
        mt_buf_str(b, id > 1 ? ", " : "");
        mt_render_sarif_location(b, &p->errors[i]->found, "a heap error was found here", id++, cwd);
    }
    mt_buf_char(b, ']');
    const mt_place_t *places[2] = {&p->failed, &p->crash};
    const char *messages[2] = {"failed on purpose at ", "crashed at "};
    mt_render_sarif_stacks(b, places, messages, p->kind == PATH_CRASH ? 2 : 1, cwd);
    mt_buf_str(b, ", \"partialFingerprints\": {\"memtrackSite/v1\": ");
    mt_buf_json_begin(b);
    mt_buf_fmt(b, "fail-path:%s:%s:%s", sweep_path_names[p->kind],
               p->failed.file != NULL ? p->failed.file
               : p->failed.module     ? p->failed.module
                                      : "",
               p->failed.func != NULL ? p->failed.func : "");
    mt_buf_json_end(b);
    mt_buf_fmt(b, "}, \"properties\": {\"allocation\": %" PRIu64 ", \"runs\": %" PRIu64 "}}",
               p->ks[0], p->runs);
}

void sweep_render_sarif(const sweep_t *s, mt_buf_t *b)
{
    mt_buf_str(b, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
                  "  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n"
                  "      \"tool\": {\"driver\": {\"name\": \"memtrack\", \"version\": ");
    mt_buf_json_str(b, MEMTRACK_VERSION);
    mt_buf_str(b, ", \"rules\": [");
    for (int k = 0; k < PATH_KINDS; k++) {
        mt_buf_fmt(b, "%s%s\", \"shortDescription\": {\"text\": ",
                   k == 0 ? "\n          {\"id\": \"fail-path/"
                          : ",\n          {\"id\": \"fail-path/",
                   sweep_path_names[k]);
        mt_buf_json_str(b, rule_texts[k]);
        mt_buf_fmt(b, "}, \"defaultConfiguration\": {\"level\": \"%s\"}}", rule_levels[k]);
    }
    mt_buf_str(b, "\n      ]}},\n");
    if (s->cwd[0] != '\0') {
        mt_buf_str(b, "      \"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": \"file://");
        mt_buf_uri_path(b, s->cwd);
        mt_buf_str(b, "/\"}},\n");
    }
    mt_buf_str(b, "      \"invocations\": [{\"executionSuccessful\": true, \"properties\": "
                  "{\"program\": ");
    mt_buf_json_str(b, s->prog[0]);
    mt_buf_fmt(b, ", \"allocations\": %" PRIu64 ", \"runs\": %" PRIu64 "}}],\n      \"results\": [",
               s->counted, s->runs);
    for (size_t i = 0; i < s->npaths; i++)
        sarif_result(s, &s->paths[i], b, i == 0);
    mt_buf_str(b, s->npaths > 0 ? "\n      ]\n    }\n  ]\n}\n" : "]\n    }\n  ]\n}\n");
}

/* ---- HTML --------------------------------------------------------------------------------- */

static void html_place(mt_buf_t *b, const mt_place_t *p)
{
    mt_buf_str(b, "<code>");
    mt_buf_escape(b, MT_ESCAPE_HTML);
    mt_buf_place(b, p);
    mt_buf_escape(b, MT_ESCAPE_NONE);
    mt_buf_str(b, "</code>");
}

/* A place and its callers, the callers closed until clicked (as the report's stacks). */
static void html_stacked(mt_buf_t *b, const char *what, const mt_place_t *p)
{
    mt_buf_str(b, "<p>");
    mt_buf_str(b, what);
    html_place(b, p);
    mt_buf_str(b, "</p>");
    if (p->stack.nframes == 0)
        return;
    mt_buf_str(b, "<details class=\"stack\"><summary>call stack (");
    mt_buf_count(b, p->stack.nframes, "frame", "frames");
    mt_buf_str(b, ")</summary><ol>");
    for (size_t i = 0; i < p->stack.nframes; i++) {
        mt_place_t q;
        memset(&q, 0, sizeof q);
        mt_place_at_frame(&q, &p->stack.frames[i]);
        mt_buf_str(b, "<li>");
        html_place(b, &q);
        mt_buf_str(b, "</li>");
    }
    mt_buf_str(b, "</ol></details>\n");
}

static void html_path(const sweep_t *s, const sweep_path_t *p, mt_buf_t *b)
{
    mt_buf_fmt(b, "<section class=\"path %s\"><h2>%s", sweep_path_names[p->kind],
               headlines[p->kind]);
    if (p->kind == PATH_CRASH && p->signal != NULL) {
        mt_buf_str(b, " (");
        mt_buf_html(b, p->signal);
        mt_buf_char(b, ')');
    }
    mt_buf_str(b, ": ");
    mt_buf_escape(b, MT_ESCAPE_HTML);
    say_allocations(b, p);
    mt_buf_escape(b, MT_ESCAPE_NONE);
    mt_buf_str(b, "</h2>\n");
    html_stacked(b, p->alloc != NULL ? "returned NULL at " : "no allocation failed; ", &p->failed);
    if (p->kind == PATH_CRASH && (p->crash.file != NULL || p->crash.pc != 0))
        html_stacked(b, "crashed at ", &p->crash);
    if (p->kind == PATH_HANG)
        mt_buf_str(b, "<p>still running at the timeout: killed</p>\n");
    for (size_t i = 0; i < p->nleaks; i++) {
        char what[96];
        snprintf(what, sizeof what, "%llu bytes in %llu block%s leaked, allocated at ",
                 (unsigned long long)p->leaks[i].bytes, (unsigned long long)p->leaks[i].blocks,
                 p->leaks[i].blocks == 1 ? "" : "s");
        html_stacked(b, what, &p->leaks[i].where);
    }
    for (size_t i = 0; i < p->nerrors; i++) {
        mt_buf_str(b, "<p>");
        mt_buf_escape(b, MT_ESCAPE_HTML);
        mt_buf_error_summary(b, p->errors[i]);
        mt_buf_escape(b, MT_ESCAPE_NONE);
        mt_buf_str(b, "</p>\n");
    }
    mt_buf_str(b, "<p>run it again: <code class=\"rerun\">");
    mt_buf_escape(b, MT_ESCAPE_HTML);
    sweep_rerun(s, p, b);
    mt_buf_escape(b, MT_ESCAPE_NONE);
    mt_buf_str(b, "</code></p></section>\n");
}

void sweep_render_html(const sweep_t *s, mt_buf_t *b)
{
    mt_buf_str(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<title>memtrack fail sweep: ");
    mt_buf_html(b, s->prog[0]);
    mt_buf_str(b, "</title>\n<style>\nbody{font:15px/1.45 system-ui,sans-serif;color:#1d2330;"
                  "max-width:1100px;margin:0 auto;padding:12px 24px}\n"
                  "section.path{border-left:4px solid #b91c1c;padding:2px 14px;margin:14px 0}\n"
                  "section.leak{border-color:#c2410c}\ncode{font-size:13px}\n"
                  "h2{font-size:17px;margin:6px 0}\n.good{color:#15803d}\n</style>\n</head>\n"
                  "<body>\n<h1>memtrack fail sweep of <code>");
    for (char **a = s->prog; *a != NULL; a++) {
        mt_buf_str(b, a == s->prog ? "" : " ");
        mt_buf_html(b, *a);
    }
    mt_buf_str(b, "</code></h1>\n<p id=\"summary\">");
    mt_buf_count(b, s->counted, "allocation", "allocations");
    mt_buf_fmt(b, "%s; allocations %" PRIu64 " to %" PRIu64 " each made to fail in turn: ",
               s->window ? " inside memtrack_fail_begin() windows" : "", s->from, s->to);
    mt_buf_count(b, s->runs, "run", "runs");
    mt_buf_str(b, ", ");
    mt_buf_count(b, s->npaths, "failure path", "failure paths");
    mt_buf_str(b, " went wrong, ");
    mt_buf_count(b, s->clean, "run", "runs");
    mt_buf_str(b, " handled the failure cleanly.</p>\n");
    if (s->npaths == 0)
        mt_buf_str(b, "<p class=\"good\">Every failure was handled cleanly.</p>\n");
    for (size_t i = 0; i < s->npaths; i++)
        html_path(s, &s->paths[i], b);
    mt_buf_str(b, "<footer>memtrack ");
    mt_buf_html(b, MEMTRACK_VERSION);
    mt_buf_str(b, "</footer>\n</body>\n</html>\n");
}
