/* render_json.c - the report as JSON, for programs: CI steps, dashboards, the diff, and
 * the memtrack-report tool that renders a saved report again.
 *
 * The layout is versioned (MT_REPORT_FORMAT_VERSION) and described field by field in
 * tools/report.schema.json; the tests validate every report they write against it. The
 * JSON holds everything the model holds, so text, SARIF and HTML rendered again from it
 * are the same as the ones the program wrote. One site, error or sample a line keeps the
 * file readable and diffs small (a place's call stack adds one line a frame). Addresses
 * are strings ("0x7f..."): a 64-bit number does not survive a JavaScript reader.
 */
#include <inttypes.h>
#include <string.h>

#include "report/model.h"

static const char *const when_names[] = {[MT_WHEN_EXIT] = "exit",
                                         [MT_WHEN_NOW] = "now",
                                         [MT_WHEN_SINCE] = "since",
                                         [MT_WHEN_LOST] = "lost"};

/* A member's name, escaped like any string: kinds and option names come from a report read
 * back, which may say anything. */
static void key(mt_buf_t *b, const char *name)
{
    mt_buf_json_str(b, name);
    mt_buf_str(b, ": ");
}

static void u64_field(mt_buf_t *b, const char *name, uint64_t v, bool last)
{
    key(b, name);
    mt_buf_u64(b, v);
    if (!last)
        mt_buf_str(b, ", ");
}

static void str_field(mt_buf_t *b, const char *name, const char *v, bool last)
{
    key(b, name);
    mt_buf_json_str(b, v);
    if (!last)
        mt_buf_str(b, ", ");
}

static void address(mt_buf_t *b, uint64_t v)
{
    if (v == 0) {
        mt_buf_str(b, "null");
        return;
    }
    mt_buf_fmt(b, "\"0x%" PRIx64 "\"", v);
}

/* Only a place or frame whose code was inlined says so: other reports read as before. */
/* "directory": the compilation directory a relative file is relative to, when known
 * (absent otherwise: reports before format 5 have none). */
static void directory_field(mt_buf_t *b, const char *file, const char *dir)
{
    if (file == NULL || file[0] == '/' || dir == NULL)
        return;
    mt_buf_str(b, ", ");
    key(b, "directory");
    mt_buf_json_str(b, dir);
}

static void inlined_field(mt_buf_t *b, bool inlined)
{
    if (inlined)
        mt_buf_str(b, ", \"inlined\": true");
}

/* A frame's fields, named as a place's are: the same reader takes both. */
static void frame_fields(mt_buf_t *b, const mt_frame_t *f)
{
    key(b, "address");
    address(b, f->pc);
    mt_buf_str(b, ", ");
    str_field(b, "function", f->func, false);
    str_field(b, "file", f->file, false);
    key(b, "line");
    mt_buf_i64(b, f->line);
    mt_buf_str(b, ", ");
    str_field(b, "module", f->module, false);
    u64_field(b, "offset", f->offset, true);
    directory_field(b, f->file, f->dir);
    inlined_field(b, f->inlined);
}

/* A place's callers, one frame a line under it; nothing for a place without a stack, so a
 * report made with stack=0 reads as one of format 2 did. */
static void stack(mt_buf_t *b, const mt_stack_t *s)
{
    if (s->nframes == 0)
        return;
    mt_buf_str(b, ", \"stack\": [");
    for (size_t i = 0; i < s->nframes; i++) {
        mt_buf_str(b, i == 0 ? "\n        {" : ",\n        {");
        frame_fields(b, &s->frames[i]);
        mt_buf_char(b, '}');
    }
    mt_buf_char(b, ']');
}

/* The fields of a place, without braces (leak sites carry them inline). */
static void place_fields(mt_buf_t *b, const mt_place_t *p)
{
    str_field(b, "kind", p->kind, false);
    str_field(b, "file", p->file, false);
    key(b, "line");
    mt_buf_i64(b, p->line);
    mt_buf_str(b, ", ");
    str_field(b, "function", p->func, false);
    str_field(b, "owner", p->owner, false);
    str_field(b, "module", p->module, false);
    key(b, "address");
    address(b, p->pc);
    mt_buf_str(b, ", ");
    u64_field(b, "offset", p->offset, true);
    directory_field(b, p->file, p->dir);
    inlined_field(b, p->inlined);
    stack(b, &p->stack);
}

void mt_render_json_place(mt_buf_t *b, const mt_place_t *p)
{
    if (p->kind == NULL && p->file == NULL && p->pc == 0) {
        mt_buf_str(b, "null");
        return;
    }
    mt_buf_char(b, '{');
    place_fields(b, p);
    mt_buf_char(b, '}');
}

static void place(mt_buf_t *b, const mt_place_t *p)
{
    mt_render_json_place(b, p);
}

static void apart(mt_buf_t *b, const mt_apart_t *a)
{
    u64_field(b, "bytes", a->bytes, false);
    u64_field(b, "blocks", a->blocks, false);
    u64_field(b, "sites", a->sites, true);
}

static void statistics(mt_buf_t *b, const memtrack_stats_t *st, uint64_t threads_running,
                       const mt_system_counts_t *system)
{
    mt_buf_str(b, "  \"statistics\": {");
    if (threads_running != 0) /* only then: a report of one thread reads as it always did */
        u64_field(b, "threads_running", threads_running, false);
    u64_field(b, "current_bytes", st->current_bytes, false);
    u64_field(b, "current_blocks", st->current_blocks, false);
    u64_field(b, "peak_bytes", st->peak_bytes, false);
    u64_field(b, "peak_blocks", st->peak_blocks, false);
    u64_field(b, "total_bytes", st->total_bytes, false);
    u64_field(b, "total_blocks", st->total_blocks, false);
    u64_field(b, "frees", st->frees, false);
    u64_field(b, "failed", st->failed, false);
    u64_field(b, "errors", st->errors, true);
    if (system->total_blocks != 0) { /* only then: other reports read as they always did */
        mt_buf_str(b, ", \"system\": {");
        u64_field(b, "total_bytes", system->total_bytes, false);
        u64_field(b, "total_blocks", system->total_blocks, false);
        u64_field(b, "freed_bytes", system->freed_bytes, false);
        u64_field(b, "frees", system->frees, true);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, "},\n");
}

/* Where the exit report's text went; absent from other reports. */
static void printed(mt_buf_t *b, const mt_printed_t *p)
{
    if (p->to == NULL)
        return;
    mt_buf_str(b, "  \"printed\": {");
    str_field(b, "to", p->to, false);
    key(b, "written");
    mt_buf_str(b, p->written ? "true, " : "false, ");
    str_field(b, "error", p->error, false);
    u64_field(b, "errno", p->error_number, false);
    u64_field(b, "device", p->device, false);
    u64_field(b, "inode", p->inode, true);
    mt_buf_str(b, "},\n");
}

/* What holds a group of leaks (a site's "held_by"); nothing for one nothing holds. */
static void holder(mt_buf_t *b, const mt_holder_t *h)
{
    if (h->kind == MT_HOLDER_NONE)
        return;
    mt_buf_str(b, ", \"held_by\": {");
    str_field(b, "kind", mt_holder_json[h->kind], false);
    str_field(b, "name", h->name, false);
    str_field(b, "function", h->func, false);
    str_field(b, "file", h->file, false);
    key(b, "line");
    mt_buf_i64(b, h->line);
    mt_buf_str(b, ", ");
    str_field(b, "module", h->module, false);
    u64_field(b, "thread", h->thread, false);
    u64_field(b, "offset", h->offset, false);
    mt_buf_str(b, "\"chain\": [");
    for (unsigned i = 0; i < h->nchain; i++) {
        if (i > 0)
            mt_buf_str(b, ", ");
        mt_buf_u64(b, h->chain[i]);
    }
    mt_buf_str(b, "], ");
    u64_field(b, "chain_length", h->chain_length, true);
    mt_buf_char(b, '}');
}

static void leaks(mt_buf_t *b, const mt_report_t *r)
{
    mt_buf_fmt(b, "  \"leaks\": {\n    \"checked\": %s, ", r->leak_check ? "true" : "false");
    u64_field(b, "bytes", r->leaked_bytes, false);
    u64_field(b, "blocks", r->leaked_blocks, false);
    u64_field(b, "listed_in_text", r->list_sites, true);
    /* Only for a report the leak scan classified: others read as they did before it. */
    if (r->classified) {
        mt_buf_str(b, ", \"classified\": true, \"lost_only\": ");
        mt_buf_str(b, r->lost_only ? "true" : "false");
        if (r->threads_unread != 0) {
            mt_buf_str(b, ", ");
            u64_field(b, "threads_unread", r->threads_unread, true);
        }
    }
    mt_buf_str(b, ",\n    \"sites\": [");
    for (size_t i = 0; i < r->nsites; i++) {
        const mt_leak_site_t *s = &r->sites[i];
        mt_buf_str(b, i == 0 ? "\n      {" : ",\n      {");
        u64_field(b, "bytes", s->bytes, false);
        u64_field(b, "blocks", s->blocks, false);
        place_fields(b, &s->where);
        mt_buf_str(b, ", \"sequence_numbers\": [");
        for (unsigned k = 0; k < s->nseqs; k++) {
            if (k > 0)
                mt_buf_str(b, ", ");
            mt_buf_u64(b, s->seqs[k]);
        }
        mt_buf_char(b, ']');
        if (s->leak_class != MT_LEAK_UNCLASSIFIED) {
            mt_buf_str(b, ", ");
            str_field(b, "class", mt_leak_class_json[s->leak_class], true);
        }
        if (s->held != NULL)
            holder(b, s->held);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, r->nsites > 0 ? "\n    ],\n" : "],\n");
    mt_buf_str(b, "    \"suppressed\": {");
    apart(b, &r->suppressed);
    mt_buf_str(b, ", \"rules\": [");
    for (size_t i = 0; i < r->nrules; i++) {
        mt_buf_str(b, i == 0 ? "\n      {" : ",\n      {");
        str_field(b, "rule", r->rules[i].rule, false);
        apart(b, &r->rules[i].hits);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, r->nrules > 0 ? "\n    ]},\n" : "]},\n");
    mt_buf_str(b, "    \"system\": {");
    apart(b, &r->system);
    if (r->lost_only) { /* leaks=lost: the blocks the program still points at */
        mt_buf_str(b, "},\n    \"held\": {");
        apart(b, &r->held_apart);
    }
    mt_buf_str(b, "}\n  },\n");
}

/* Functions whose leaks are shown at their callers; left out when there are none. */
static void wrappers(mt_buf_t *b, const mt_report_t *r)
{
    if (r->nwrappers == 0)
        return;
    mt_buf_str(b, "  \"wrappers\": [");
    for (size_t i = 0; i < r->nwrappers; i++) {
        mt_buf_str(b, i == 0 ? "\n    {" : ",\n    {");
        frame_fields(b, &r->wrappers[i].fn);
        mt_buf_str(b, r->wrappers[i].detected ? ", \"detected\": true}" : ", \"detected\": false}");
    }
    mt_buf_str(b, "\n  ],\n");
}

/* What the call stacks could not show; left out when nothing (unavailable too: a target
 * with stacks writes what it always wrote). */
static void stack_notes(mt_buf_t *b, const mt_report_t *r)
{
    if (r->stacks_unwalked == 0 && !r->stacks_no_frame_pointers && r->stacks_unavailable == NULL)
        return;
    mt_buf_str(b, "  \"stack_notes\": {");
    u64_field(b, "unwalked", r->stacks_unwalked, false);
    mt_buf_str(b, r->stacks_no_frame_pointers ? "\"no_frame_pointers\": true"
                                              : "\"no_frame_pointers\": false");
    if (r->stacks_unavailable != NULL) {
        mt_buf_str(b, ", ");
        str_field(b, "unavailable", r->stacks_unavailable, true);
    }
    mt_buf_str(b, "},\n");
}

static void errors(mt_buf_t *b, const mt_report_t *r)
{
    mt_buf_str(b, "  \"errors\": {\n    ");
    u64_field(b, "total", r->errors, false);
    mt_buf_str(b, "\"by_kind\": {");
    for (size_t k = 0; k < r->nerror_kinds; k++)
        u64_field(b, r->error_kinds[k].name, r->error_kinds[k].count, k + 1 == r->nerror_kinds);
    mt_buf_str(b, "},\n    \"list\": [");
    for (size_t i = 0; i < r->nerror_list; i++) {
        const mt_report_error_t *e = &r->error_list[i];
        mt_buf_str(b, i == 0 ? "\n      {" : ",\n      {");
        str_field(b, "kind", e->kind, false);
        key(b, "address");
        address(b, e->addr);
        mt_buf_str(b, ", ");
        u64_field(b, "size", e->size, false);
        u64_field(b, "sequence", e->seq, false);
        u64_field(b, "thread", e->thread, false);
        u64_field(b, "changed", e->changed, false);
        u64_field(b, "extent", e->extent, false);
        if (e->spans != 0) /* only then: other reports read as they always did */
            u64_field(b, "spans", e->spans, false);
        key(b, "pointer");
        address(b, e->pointer);
        mt_buf_str(b, ", ");
        key(b, "offset");
        mt_buf_i64(b, e->offset);
        mt_buf_str(b, ", ");
        str_field(b, "what", e->what, true);
        if (e->access != NULL) { /* a fault at a page guard: found_at is the access */
            mt_buf_str(b, ", ");
            str_field(b, "access", e->access, true);
        }
        mt_buf_str(b, ",\n       \"allocated_at\": ");
        place(b, &e->alloc);
        mt_buf_str(b, ",\n       \"released_at\": ");
        place(b, &e->freed);
        mt_buf_str(b, ",\n       \"found_at\": ");
        place(b, &e->found);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, r->nerror_list > 0 ? "\n    ],\n" : "],\n");
    mt_buf_str(b, "    ");
    u64_field(b, "max_messages", r->max_messages, true);
    mt_buf_str(b, ",\n    \"not_printed\": [");
    for (size_t i = 0; i < r->nnot_printed; i++) {
        const mt_not_printed_t *n = &r->not_printed[i];
        mt_buf_str(b, i == 0 ? "\n      {" : ",\n      {");
        str_field(b, "kind", n->kind, false);
        u64_field(b, "count", n->count, true);
        mt_buf_str(b, ", \"found_at\": ");
        place(b, &n->found);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, r->nnot_printed > 0 ? "\n    ]\n  },\n" : "]\n  },\n");
}

static void unwritten(mt_buf_t *b, const mt_report_t *r)
{
    mt_buf_fmt(b, "  \"unwritten\": {\"checked\": %s, \"sites\": [",
               r->unwritten_check ? "true" : "false");
    for (size_t i = 0; i < r->nunwritten; i++) {
        const mt_unwritten_t *u = &r->unwritten[i];
        mt_buf_str(b, i == 0 ? "\n      {" : ",\n      {");
        u64_field(b, "blocks", u->blocks, false);
        u64_field(b, "bytes", u->bytes, false);
        u64_field(b, "unwritten", u->unwritten, false);
        place_fields(b, &u->where);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, r->nunwritten > 0 ? "\n    ]},\n" : "]},\n");
}

/* Allocations made to fail on purpose; left out when no fail_ option was set. */
static void injected(mt_buf_t *b, const mt_injected_t *in)
{
    if (!in->armed)
        return;
    mt_buf_str(b, "  \"injected\": {");
    u64_field(b, "counted", in->counted, false);
    u64_field(b, "failed", in->failed, false);
    u64_field(b, "windows", in->windows, false);
    u64_field(b, "in_windows", in->in_windows, false);
    u64_field(b, "seed", in->seed, false);
    mt_buf_str(b, "\"sites\": [");
    for (size_t i = 0; i < in->nsites; i++) {
        const mt_injected_site_t *g = &in->sites[i];
        mt_buf_str(b, i == 0 ? "\n      {" : ",\n      {");
        u64_field(b, "failures", g->failures, false);
        u64_field(b, "bytes", g->bytes, false);
        mt_buf_str(b, "\"allocations\": [");
        for (unsigned k = 0; k < g->nnths; k++) {
            if (k > 0)
                mt_buf_str(b, ", ");
            mt_buf_u64(b, g->nths[k]);
        }
        mt_buf_str(b, "], ");
        place_fields(b, &g->where);
        mt_buf_char(b, '}');
    }
    mt_buf_str(b, in->nsites > 0 ? "\n    ]},\n" : "]},\n");
}

static void sample(mt_buf_t *b, const mt_sample_t *s)
{
    mt_buf_char(b, '{');
    u64_field(b, "event", s->event, false);
    u64_field(b, "bytes", s->bytes, false);
    u64_field(b, "blocks", s->blocks, false);
    u64_field(b, "usec", s->usec, true);
    mt_buf_char(b, '}');
}

static void timeline(mt_buf_t *b, const mt_report_t *r)
{
    mt_buf_str(b, "  \"timeline\": {\n    \"peak\": ");
    sample(b, &r->peak);
    mt_buf_str(b, ",\n    \"samples\": [");
    for (size_t i = 0; i < r->nsamples; i++) {
        mt_buf_str(b, i == 0 ? "\n      " : ",\n      ");
        sample(b, &r->samples[i]);
    }
    mt_buf_str(b, r->nsamples > 0 ? "\n    ]\n  },\n" : "]\n  },\n");
}

static void options(mt_buf_t *b, const mt_report_t *r)
{
    mt_buf_str(b, "  \"options\": {");
    for (size_t i = 0; i < r->noptions; i++) {
        const mt_option_value_t *o = &r->options[i];
        mt_buf_str(b, i == 0 ? "\n    " : ",\n    ");
        key(b, o->name);
        if (o->type == 'b')
            mt_buf_str(b, strcmp(o->value, "0") != 0 ? "true" : "false");
        else if (o->type == 'n')
            mt_buf_str(b, o->value[0] != '\0' ? o->value : "0");
        else
            mt_buf_json_str(b, o->value);
    }
    mt_buf_str(b, r->noptions > 0 ? "\n  }\n" : "}\n");
}

void mt_render_json(const mt_report_t *r, mt_buf_t *b)
{
    mt_buf_str(b, "{\n  \"format\": \"memtrack-report\", ");
    u64_field(b, "version", MT_REPORT_FORMAT_VERSION, false);
    str_field(b, "memtrack", r->version, true);
    mt_buf_str(b, ",\n  ");
    str_field(b, "program", r->program, false);
    u64_field(b, "pid", r->pid, false);
    str_field(b, "cwd", r->cwd, false);
    str_field(b, "when", when_names[r->when], false);
    u64_field(b, "since", r->since, true);
    if (r->partial != NULL) { /* only then: a whole report reads as it always did */
        mt_buf_str(b, ", ");
        str_field(b, "partial", r->partial, true);
    }
    mt_buf_str(b, ",\n");
    printed(b, &r->printed);
    statistics(b, &r->stats, r->threads_running, &r->system_counts);
    leaks(b, r);
    wrappers(b, r);
    stack_notes(b, r);
    errors(b, r);
    unwritten(b, r);
    injected(b, &r->injected);
    timeline(b, r);
    options(b, r);
    mt_buf_str(b, "}\n");
    mt_buf_flush(b);
}
