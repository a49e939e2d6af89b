/* render_html.c - the report as one self-contained HTML page, for a person hunting a leak.
 *
 * No network, no external file: the style, the plot (inline SVG) and the table sorting
 * (a few lines of script) are in the page. It shows a summary, live bytes over the run
 * with the peak marked, the largest sites as bars, every leak site in a table sorted by
 * clicking a column, the errors, and the options in effect. A place's call stack is a
 * <details> element under it, closed until clicked. Elements the tests and a reader's
 * scripts may look for have ids: summary, timeline-plot, live-bytes, peak-marker,
 * peak-label, top-sites, leak-table, error-table, injected-table, options, wrappers-note,
 * partial-note, system-counts; stacks have the class stack and one of leak-stack,
 * alloc-stack, release-stack, found-stack, injected-stack.
 * The plot of live bytes over the run is render_html_timeline.c's.
 */
#include <inttypes.h>
#include <string.h>

#include "errors/format.h"

#define TOP_BARS 10u

static const char style[] =
    "<style>\n"
    ":root{--ink:#1d2330;--muted:#5b6475;--line:#d9dde5;--bg:#f6f7f9;--card:#fff;"
    "--leak:#c2410c;--ok:#15803d;--err:#b91c1c;--plot:#2563eb}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "color:var(--ink);background:var(--bg)}\n"
    "header,section,footer{max-width:1100px;margin:0 auto;padding:12px 24px}\n"
    "header h1{font-size:22px;margin:18px 0 4px}\n"
    "header p{margin:0;color:var(--muted)}\n"
    "h2{font-size:17px;margin:8px 0 10px}\n"
    ".status{display:inline-block;padding:2px 10px;border-radius:12px;color:#fff;"
    "font-size:13px;font-weight:600;vertical-align:middle}\n"
    ".status.bad{background:var(--err)}.status.good{background:var(--ok)}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:10px}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:10px 12px}\n"
    ".card .label{color:var(--muted);font-size:12px;text-transform:uppercase;"
    "letter-spacing:.04em}\n"
    ".card .value{font-size:20px;font-weight:650}\n"
    ".card .exact{color:var(--muted);font-size:12px}\n"
    ".note{color:var(--muted);font-size:13px;margin:6px 0}\n"
    "svg{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "width:100%;height:auto}\n"
    "svg text{font:12px system-ui,sans-serif;fill:var(--muted)}\n"
    "svg .grid{stroke:var(--line);stroke-width:1}\n"
    "svg .axis{stroke:var(--muted);stroke-width:1}\n"
    "svg .line{fill:none;stroke:var(--plot);stroke-width:2;stroke-linejoin:round}\n"
    "svg .area{fill:var(--plot);fill-opacity:.12;stroke:none}\n"
    "svg #peak-marker{fill:var(--leak);stroke:#fff;stroke-width:2}\n"
    "svg #peak-label{fill:var(--leak);font-weight:650}\n"
    ".bar-row{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr) 110px;gap:10px;"
    "align-items:center;margin:4px 0}\n"
    ".bar-label{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:13px}\n"
    ".bar-track{background:#e9ecf2;border-radius:4px;height:16px}\n"
    ".bar{background:var(--leak);border-radius:4px;height:16px;min-width:2px}\n"
    ".bar-value{text-align:right;font-variant-numeric:tabular-nums;font-size:13px}\n"
    "table{border-collapse:collapse;width:100%;background:var(--card);"
    "border:1px solid var(--line);font-size:13px}\n"
    "th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;"
    "vertical-align:top}\n"
    "td code,td.detail{overflow-wrap:anywhere}\n"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "th{background:#eef0f4;white-space:nowrap}\n"
    "table.sortable th{cursor:pointer;user-select:none}\n"
    "table.sortable th::after{content:' \\2195';color:#a0a7b4}\n"
    "table.sortable th[aria-sort=ascending]::after{content:' \\25B2';color:var(--ink)}\n"
    "table.sortable th[aria-sort=descending]::after{content:' \\25BC';color:var(--ink)}\n"
    "code{font:12px ui-monospace,monospace}\n"
    "details.stack{margin-top:2px}\n"
    "details.stack summary{cursor:pointer;color:var(--muted);font-size:12px}\n"
    "ol.frames{margin:4px 0 2px;padding-left:22px}\n"
    "ol.frames li{font:12px ui-monospace,monospace;overflow-wrap:anywhere}\n"
    "footer{color:var(--muted);font-size:12px;padding-bottom:30px}\n"
    "</style>\n";

/* Sorts a table by the clicked column: numbers by data-value, text alphabetically. */
static const char script[] =
    "<script>\n"
    "for (const table of document.querySelectorAll('table.sortable')) {\n"
    "  table.querySelectorAll('thead th').forEach((th, col) => {\n"
    "    th.addEventListener('click', () => {\n"
    "      const up = th.getAttribute('aria-sort') !== 'ascending';\n"
    "      table.querySelectorAll('thead th').forEach(h => h.removeAttribute('aria-sort'));\n"
    "      th.setAttribute('aria-sort', up ? 'ascending' : 'descending');\n"
    "      const num = th.classList.contains('num');\n"
    "      const key = row => {\n"
    "        const cell = row.cells[col];\n"
    "        const v = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent;\n"
    "        return num ? Number(v) : v.toLowerCase();\n"
    "      };\n"
    "      const body = table.tBodies[0];\n"
    "      const rows = Array.from(body.rows);\n"
    "      rows.sort((a, b) => { const x = key(a), y = key(b);\n"
    "        return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); });\n"
    "      for (const row of rows) body.appendChild(row);\n"
    "    });\n"
    "  });\n"
    "}\n"
    "</script>\n";

static void card(mt_buf_t *b, const char *id, const char *label, uint64_t value, bool bytes)
{
    mt_buf_fmt(b,
               "<div class=\"card\" id=\"%s\" data-value=\"%" PRIu64
               "\"><div class=\"label\">%s</div><div class=\"value\">",
               id, value, label);
    if (bytes)
        mt_buf_size(b, value);
    else
        mt_buf_u64(b, value);
    mt_buf_str(b, "</div>");
    if (bytes && value >= 1024) {
        mt_buf_str(b, "<div class=\"exact\">");
        mt_buf_count(b, value, "byte", "bytes");
        mt_buf_str(b, "</div>");
    }
    mt_buf_str(b, "</div>\n");
}

/* The place as text, escaped. */
static void html_place(mt_buf_t *b, const mt_place_t *p)
{
    mt_buf_escape(b, MT_ESCAPE_HTML); /* escaped as it is written: never cut */
    mt_buf_place(b, p);
    mt_buf_escape(b, MT_ESCAPE_NONE);
}

/* "file:line" (or the address form) without the function, for the table's Site column. */
static void html_site_only(mt_buf_t *b, const mt_place_t *p)
{
    mt_place_t q = *p;
    if (q.file != NULL)
        q.func = NULL;
    html_place(b, &q);
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* A caller as a person reads it: "func at file:line" where there is line information,
 * else "func+0xOFF (module)", or the address itself when not even a symbol is known. */
static void html_frame(mt_buf_t *b, const mt_frame_t *f)
{
    mt_buf_escape(b, MT_ESCAPE_HTML); /* escaped as it is written: never cut */
    if (f->func != NULL)
        mt_buf_text(b, f->func);
    if (f->file != NULL) {
        mt_buf_str(b, f->func != NULL ? " at " : "");
        mt_buf_text(b, f->file);
        if (f->line > 0) {
            mt_buf_char(b, ':');
            mt_buf_u64(b, (uint64_t)f->line);
        }
    } else {
        if (f->func == NULL)
            mt_buf_hex(b, f->pc);
        else if (f->offset != 0) {
            mt_buf_char(b, '+');
            mt_buf_hex(b, f->offset);
        }
        if (f->module != NULL) {
            mt_buf_fmt(b, " (%-s)", basename_of(f->module));
        }
    }
    mt_buf_escape(b, MT_ESCAPE_NONE);
}

/* A place's callers, closed until clicked: <details> needs no script and is reachable by
 * keyboard. what is a class naming whose stack it is (tests and readers' scripts find it
 * by it) and label the summary's first words. Nothing for a place without callers. A
 * function that inlined the code above it (no call) is a frame of class inlined-into. */
static void html_stack(mt_buf_t *b, const mt_place_t *p, const char *what, const char *label)
{
    const mt_stack_t *st = &p->stack;
    if (st->nframes == 0)
        return;
    mt_buf_fmt(b, "<details class=\"stack %s\" data-frames=\"%" PRIu64 "\"><summary>%s (", what,
               (uint64_t)st->nframes, label);
    mt_buf_count(b, st->nframes, "frame", "frames");
    mt_buf_str(b, ")</summary><ol class=\"frames\">");
    for (size_t i = 0; i < st->nframes; i++) {
        bool inlined = i == 0 ? p->inlined : st->frames[i - 1].inlined;
        mt_buf_str(b, inlined ? "<li class=\"inlined-into\">inlined into " : "<li>");
        html_frame(b, &st->frames[i]);
        mt_buf_str(b, "</li>");
    }
    mt_buf_str(b, "</ol></details>");
}

/* The functions whose leaks are shown at their callers, and why each one is. */
static void wrappers_note(mt_buf_t *b, const mt_report_t *r)
{
    if (r->nwrappers == 0)
        return;
    mt_buf_str(b, "<p class=\"note\" id=\"wrappers-note\">Leaks made inside allocation "
                  "wrappers are shown at their callers: ");
    for (size_t i = 0; i < r->nwrappers; i++) {
        const mt_wrapper_t *w = &r->wrappers[i];
        mt_buf_str(b, i == 0 ? "<code>" : ", <code>");
        mt_buf_html(b, w->fn.func != NULL ? w->fn.func : "?");
        mt_buf_str(b, "</code> (");
        if (w->fn.file != NULL) { /* where the allocation inside it is */
            mt_frame_t where = w->fn;
            where.func = NULL; /* named already */
            html_frame(b, &where);
            mt_buf_str(b, ", ");
        } else if (w->fn.module != NULL) {
            mt_buf_html(b, basename_of(w->fn.module));
            mt_buf_str(b, ", ");
        }
        mt_buf_str(b, w->detected ? "found by memtrack's rule)" : "named by option alloc_fn)");
    }
    mt_buf_str(b, ".</p>\n");
}

/* What the call stacks could not show (render_text.c says it in the same words). */
static void stacks_note(mt_buf_t *b, const mt_report_t *r)
{
    if (r->stacks_unavailable != NULL) {
        mt_buf_str(b, "<p class=\"note\" id=\"stacks-unavailable\">Call stacks: not available on "
                      "this target (");
        mt_buf_html(b, r->stacks_unavailable);
        mt_buf_str(b, ").</p>\n");
    }
    if (r->stacks_no_frame_pointers)
        mt_buf_str(b, "<p class=\"note\" id=\"stacks-note\">Most call stacks stop before main: "
                      "code built without frame pointers cuts them short; build it with "
                      "<code>-fno-omit-frame-pointer</code> or run with "
                      "<code>unwind=exact</code>.</p>\n");
    if (r->stacks_unwalked != 0) {
        mt_buf_str(b, "<p class=\"note\" id=\"unwalked-note\">");
        mt_buf_count(b, r->stacks_unwalked, "allocation was", "allocations were");
        mt_buf_str(b,
                   " made on a stack memtrack was not told of: their sites have no callers.</p>\n");
    }
}

static void apart_note(mt_buf_t *b, const mt_apart_t *a, const char *id, const char *why)
{
    if (a->blocks == 0)
        return;
    mt_buf_fmt(b, "<p class=\"note\" id=\"%s\">Not listed: ", id);
    mt_buf_size(b, a->bytes);
    mt_buf_str(b, " in ");
    mt_buf_count(b, a->blocks, "block", "blocks");
    mt_buf_str(b, " from ");
    mt_buf_count(b, a->sites, "site", "sites");
    mt_buf_str(b, why);
    mt_buf_str(b, "</p>\n");
}

/* The blocks made inside system libraries, which the figures above leave out. */
static void system_note(mt_buf_t *b, const mt_system_counts_t *c)
{
    if (c->total_blocks == 0)
        return;
    mt_buf_str(b, "<p class=\"note\" id=\"system-counts\">Not in these figures: ");
    mt_buf_count(b, c->total_blocks, "allocation", "allocations");
    mt_buf_str(b, " (");
    mt_buf_size(b, c->total_bytes);
    mt_buf_str(b, ") and ");
    mt_buf_count(b, c->frees, "free", "frees");
    mt_buf_str(b, " inside system libraries.</p>\n");
}

static void summary(mt_buf_t *b, const mt_report_t *r)
{
    bool at_exit = r->when == MT_WHEN_EXIT;
    mt_buf_str(b, "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">\n");
    if (r->leak_check) {
        card(b, "leaked-bytes", at_exit ? "Leaked" : "Live", r->leaked_bytes, true);
        card(b, "leaked-blocks", at_exit ? "Leaked blocks" : "Live blocks", r->leaked_blocks,
             false);
        card(b, "leak-sites", "Sites", r->nsites, false);
    }
    card(b, "error-count", "Errors", r->errors, false);
    card(b, "peak-bytes", "Peak", r->stats.peak_bytes, true);
    card(b, "peak-blocks", "Peak blocks", r->stats.peak_blocks, false);
    card(b, "allocations", "Allocations", r->stats.total_blocks, false);
    card(b, "allocated-bytes", "Allocated", r->stats.total_bytes, true);
    card(b, "frees", "Frees", r->stats.frees, false);
    card(b, "failed", "Failed", r->stats.failed, false);
    mt_buf_str(b, "</div>\n");
    if (r->partial != NULL) {
        mt_buf_str(b, "<p class=\"note\" id=\"partial-note\">Partial report: ");
        mt_buf_html(b, r->partial);
        mt_buf_str(b, ". The leaks are totals and the errors are counted, not listed.</p>\n");
    }
    if (!r->leak_check)
        mt_buf_str(b, "<p class=\"note\">Leaks were not looked for (option leaks=0).</p>\n");
    apart_note(b, &r->suppressed, "suppressed-note", " (suppressed by rules).");
    system_note(b, &r->system_counts);
    apart_note(b, &r->system, "system-note",
               " made inside system libraries (option system_leaks lists them).");
    apart_note(b, &r->held_apart, "held-note",
               " the program still points at (option leaks=lost leaves them out).");
    wrappers_note(b, r);
    stacks_note(b, r);
    mt_buf_str(b, "</section>\n");
}

/* A bar's site, with its first caller when it has one: leaks are grouped by site and
 * stack, and two bars of one site called from two places must not read the same. */
static void bar_label(mt_buf_t *b, const mt_place_t *p)
{
    html_place(b, p);
    if (p->stack.nframes > 0) {
        mt_buf_str(b, p->inlined ? " inlined into " : " from ");
        html_frame(b, &p->stack.frames[0]);
    }
}

static void top_sites(mt_buf_t *b, const mt_report_t *r)
{
    if (!r->leak_check || r->nsites == 0)
        return;
    size_t n = r->nsites < TOP_BARS ? r->nsites : TOP_BARS;
    uint64_t max = r->sites[0].bytes > 0 ? r->sites[0].bytes : 1;
    mt_buf_str(b, "<section id=\"top-sites\"><h2>Largest sites</h2>\n");
    for (size_t i = 0; i < n; i++) {
        const mt_leak_site_t *s = &r->sites[i];
        uint64_t permille = s->bytes >= max ? 1000 : s->bytes * 1000 / max;
        mt_buf_fmt(b,
                   "<div class=\"bar-row\" data-bytes=\"%" PRIu64
                   "\"><span class=\"bar-label\" title=\"",
                   s->bytes);
        bar_label(b, &s->where);
        mt_buf_str(b, "\">");
        bar_label(b, &s->where);
        mt_buf_fmt(b,
                   "</span><span class=\"bar-track\"><span class=\"bar\" "
                   "style=\"display:block;width:%" PRIu64 ".%" PRIu64
                   "%%\"></span></span><span class=\"bar-value\">",
                   permille / 10, permille % 10);
        mt_buf_size(b, s->bytes);
        mt_buf_str(b, "</span></div>\n");
    }
    mt_buf_str(b, "</section>\n");
}

static void num_cell(mt_buf_t *b, uint64_t v)
{
    mt_buf_fmt(b, "<td class=\"num\" data-value=\"%" PRIu64 "\">%" PRIu64 "</td>", v, v);
}

static void leak_table(mt_buf_t *b, const mt_report_t *r)
{
    if (!r->leak_check)
        return;
    mt_buf_str(b, r->when == MT_WHEN_EXIT ? "<section id=\"leaks\"><h2>Leak sites</h2>\n"
                                          : "<section id=\"leaks\"><h2>Live blocks by site</h2>\n");
    if (r->nsites == 0) {
        mt_buf_str(b, "<p class=\"note\">None.</p></section>\n");
        return;
    }
    /* Once the leak scan classified them: how each group is held, and by what. */
    mt_buf_str(b, "<table id=\"leak-table\" class=\"sortable\"><thead><tr>");
    mt_buf_str(b, "<th class=\"num\">Bytes</th><th class=\"num\">Blocks</th><th>Site</th>"
                  "<th>Function</th><th>Kind</th><th>Owner</th><th class=\"num\">First block</th>"
                  "<th>Blocks #</th><th>Called from</th>");
    if (r->classified)
        mt_buf_str(b, "<th>Class</th><th>Held by</th>");
    mt_buf_str(b, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < r->nsites; i++) {
        const mt_leak_site_t *s = &r->sites[i];
        mt_buf_str(b, "<tr>");
        num_cell(b, s->bytes);
        num_cell(b, s->blocks);
        mt_buf_str(b, "<td><code>");
        html_site_only(b, &s->where);
        mt_buf_str(b, "</code></td><td>");
        mt_buf_html(b, s->where.func);
        mt_buf_str(b, "</td><td>");
        mt_buf_html(b, s->where.kind);
        mt_buf_str(b, "</td><td>");
        mt_buf_html(b, s->where.owner);
        mt_buf_str(b, "</td>");
        num_cell(b, s->nseqs > 0 ? s->seqs[0] : 0);
        mt_buf_str(b, "<td>");
        for (unsigned k = 0; k < s->nseqs; k++) {
            mt_buf_str(b, k == 0 ? "#" : ", #");
            mt_buf_u64(b, s->seqs[k]);
        }
        if (s->blocks > s->nseqs) {
            mt_buf_fmt(b, "%s%" PRIu64 " more", s->nseqs > 0 ? " and " : "", s->blocks - s->nseqs);
        }
        /* Sorted by the first caller, not by the whole stack's text. */
        mt_buf_str(b, "</td><td data-value=\"");
        if (s->where.stack.nframes > 0)
            html_frame(b, &s->where.stack.frames[0]);
        mt_buf_str(b, "\">");
        html_stack(b, &s->where, "leak-stack", "call stack");
        mt_buf_str(b, "</td>");
        if (r->classified) { /* sorted as listed: lost first */
            mt_buf_fmt(b, "<td class=\"class\" data-value=\"%" PRIu64 "\">",
                       (uint64_t)s->leak_class);
            mt_buf_html(b, mt_leak_class_text[s->leak_class]);
            mt_buf_str(b, "</td><td class=\"held\">");
            mt_buf_escape(b, MT_ESCAPE_HTML);
            if (s->held != NULL)
                mt_buf_holder(b, s->held);
            mt_buf_escape(b, MT_ESCAPE_NONE);
            mt_buf_str(b, "</td>");
        }
        mt_buf_str(b, "</tr>\n");
    }
    mt_buf_str(b, "</tbody></table>\n</section>\n");
}

static void error_table(mt_buf_t *b, const mt_report_t *r)
{
    mt_buf_str(b, "<section id=\"errors\"><h2>Errors</h2>\n");
    if (r->errors == 0) {
        mt_buf_str(b, "<p class=\"note\">None found.</p></section>\n");
        return;
    }
    mt_buf_str(b, "<p class=\"note\">");
    for (size_t k = 0; k < r->nerror_kinds; k++) {
        mt_buf_str(b, k == 0 ? "" : ", ");
        mt_buf_html(b, r->error_kinds[k].name);
        mt_buf_char(b, ' ');
        mt_buf_u64(b, r->error_kinds[k].count);
    }
    mt_buf_str(b, "</p>\n<table id=\"error-table\" class=\"sortable\"><thead><tr>"
                  "<th>Kind</th><th class=\"num\">Block</th><th class=\"num\">Size</th>"
                  "<th>Allocated at</th><th>Found by</th><th>Detail</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < r->nerror_list; i++) {
        const mt_report_error_t *e = &r->error_list[i];
        mt_buf_str(b, "<tr><td>");
        mt_buf_html(b, e->kind);
        mt_buf_str(b, "</td>");
        num_cell(b, e->seq);
        num_cell(b, e->size);
        mt_buf_str(b, "<td><code>");
        html_place(b, &e->alloc);
        mt_buf_str(b, "</code>");
        html_stack(b, &e->alloc, "alloc-stack", "call stack");
        mt_buf_str(b, "</td><td>");
        mt_buf_html(b, e->found.kind);
        if (e->found.file != NULL || e->found.pc != 0) {
            mt_buf_str(b, " at <code>");
            html_place(b, &e->found);
            mt_buf_str(b, "</code>");
        }
        html_stack(b, &e->found, "found-stack", "call stack");
        mt_buf_str(b, "</td><td class=\"detail\">");
        mt_buf_escape(b, MT_ESCAPE_HTML);
        mt_buf_error_summary(b, e);
        mt_buf_escape(b, MT_ESCAPE_NONE);
        if (e->freed.kind != NULL)
            html_stack(b, &e->freed, "release-stack", "call stack of the release");
        mt_buf_str(b, "</td></tr>\n");
    }
    mt_buf_str(b, "</tbody></table>\n");
    if (r->nerror_list < r->errors) {
        mt_buf_str(b, "<p class=\"note\">");
        mt_buf_count(b, r->errors - r->nerror_list, "more error was", "more errors were");
        mt_buf_str(b, " found but not logged.</p>\n");
    }
    mt_buf_str(b, "</section>\n");
}

/* Options fail_*: the allocations made to fail on purpose, by the call that got NULL;
 * no section when no fail_ option was set. */
static void injected_table(mt_buf_t *b, const mt_report_t *r)
{
    const mt_injected_t *in = &r->injected;
    if (!in->armed)
        return;
    mt_buf_fmt(b,
               "<section id=\"injected\"><h2>Allocations failed on purpose</h2>\n<p "
               "class=\"note\">%" PRIu64 " of ",
               in->failed);
    mt_buf_count(b, in->counted, "allocation", "allocations");
    mt_buf_str(b, " counted failed on purpose (options fail_*)");
    if (in->windows != 0) {
        mt_buf_fmt(b, "; %" PRIu64 " counted inside memtrack_fail_begin() windows", in->in_windows);
    }
    if (in->seed != 0) {
        mt_buf_fmt(b, "; <code>fail_seed=%" PRIu64 "</code> runs it again", in->seed);
    }
    mt_buf_str(b, ".</p>\n");
    if (in->nsites == 0) {
        mt_buf_str(b, "</section>\n");
        return;
    }
    mt_buf_str(b, "<table id=\"injected-table\" class=\"sortable\"><thead><tr>"
                  "<th class=\"num\">Failures</th><th>Site</th><th>Function</th><th>Kind</th>"
                  "<th class=\"num\">Bytes</th><th>Allocations (fail_nth)</th><th>Called from</th>"
                  "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < in->nsites; i++) {
        const mt_injected_site_t *g = &in->sites[i];
        mt_buf_str(b, "<tr>");
        num_cell(b, g->failures);
        mt_buf_str(b, "<td><code>");
        html_site_only(b, &g->where);
        mt_buf_str(b, "</code></td><td>");
        mt_buf_html(b, g->where.func);
        mt_buf_str(b, "</td><td>");
        mt_buf_html(b, g->where.kind);
        mt_buf_str(b, "</td>");
        num_cell(b, g->bytes);
        mt_buf_str(b, "<td>");
        for (unsigned k = 0; k < g->nnths; k++) {
            mt_buf_str(b, k == 0 ? "" : ", ");
            mt_buf_u64(b, g->nths[k]);
        }
        if (g->failures > g->nnths) {
            mt_buf_fmt(b, " and %" PRIu64 " more", g->failures - g->nnths);
        }
        mt_buf_str(b, "</td><td>");
        html_stack(b, &g->where, "injected-stack", "call stack");
        mt_buf_str(b, "</td></tr>\n");
    }
    mt_buf_str(b, "</tbody></table>\n</section>\n");
}

static void options_table(mt_buf_t *b, const mt_report_t *r)
{
    mt_buf_str(b, "<section id=\"options\"><details><summary>Options in effect</summary>\n"
                  "<table><tbody>\n");
    for (size_t i = 0; i < r->noptions; i++) {
        mt_buf_str(b, "<tr><td><code>");
        mt_buf_html(b, r->options[i].name);
        mt_buf_str(b, "</code></td><td><code>");
        mt_buf_html(b, r->options[i].value);
        mt_buf_str(b, "</code></td></tr>\n");
    }
    mt_buf_str(b, "</tbody></table></details></section>\n");
}

void mt_render_html(const mt_report_t *r, mt_buf_t *b)
{
    bool found = mt_report_found(r);
    mt_buf_str(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<title>memtrack: ");
    mt_buf_html(b, r->program);
    mt_buf_fmt(b, "</title>\n%s</head>\n<body>\n<header><h1>memtrack report for <code>", style);
    mt_buf_html(b, r->program);
    mt_buf_fmt(b, "</code> <span class=\"status %s%s</span></h1>\n<p>pid %" PRIu64,
               found ? "bad\">" : "good\">",
               found ? (r->errors != 0 ? "errors found" : "leaks found") : "clean", r->pid);
    switch (r->when) {
    case MT_WHEN_EXIT: mt_buf_str(b, ", at exit"); break;
    case MT_WHEN_NOW: mt_buf_str(b, ", during the run"); break;
    case MT_WHEN_SINCE:
        mt_buf_str(b, ", blocks made since checkpoint #");
        mt_buf_u64(b, r->since);
        break;
    case MT_WHEN_LOST: mt_buf_str(b, ", blocks lost during the run"); break;
    }
    if (r->cwd != NULL) {
        mt_buf_str(b, ", in <code>");
        mt_buf_html(b, r->cwd);
        mt_buf_str(b, "</code>");
    }
    mt_buf_str(b, "</p></header>\n");
    summary(b, r);
    mt_render_html_timeline(r, b);
    top_sites(b, r);
    leak_table(b, r);
    error_table(b, r);
    injected_table(b, r);
    options_table(b, r);
    mt_buf_str(b, "<footer>memtrack ");
    mt_buf_html(b, r->version);
    mt_buf_fmt(b, ", report format %" PRIu64 "</footer>\n%s</body>\n</html>\n",
               (uint64_t)MT_REPORT_FORMAT_VERSION, script);
    mt_buf_flush(b);
}
