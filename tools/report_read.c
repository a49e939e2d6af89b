/* report_read.c - reads a JSON report (tools/report.schema.json) back into the report
 * model (src/report/model.h), so the library's own renderers can render it again.
 *
 * Everything the JSON holds goes into the model and nothing else, so rendering the model
 * again gives what the program itself wrote. Strings stay in the parsed tree, which must
 * outlive the model. A report of a newer format version, or one that misses a field,
 * is refused with a message that names the field.
 */
#include "report_read.h"
#include "errors/words.h"
#include "records/kinds.h"
#include "report_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A place's or a frame's "line": a whole number (0: unknown). */
static long line_of(reader_t *rd, const json_t *obj, const char *where)
{
    int64_t line = 0;
    if (!number_of(need(rd, obj, "line", JSON_NUMBER, where), true, &line))
        fail(rd, "%s.line should be a whole number", where);
    return (long)line;
}

/* "inlined": true when the code was inlined into the next frame; absent (as in reports
 * before format 4): false. */
static bool inlined_of(reader_t *rd, const json_t *obj, const char *where)
{
    return json_get(obj, "inlined") != NULL && boolean(rd, obj, "inlined", where);
}

/* A frame of a stack, or a wrapper's function: a place's fields without kind and owner. */
static void read_frame(reader_t *rd, const json_t *obj, mt_frame_t *f, const char *where)
{
    if (obj->type != JSON_OBJECT) {
        fail(rd, "%s should be an object", where);
        return;
    }
    f->pc = address_of(rd, obj, where);
    f->func = opt_string(rd, obj, "function", where);
    f->file = opt_string(rd, obj, "file", where);
    f->line = line_of(rd, obj, where);
    f->module = opt_string(rd, obj, "module", where);
    f->offset = u64(rd, obj, "offset", where);
    f->inlined = inlined_of(rd, obj, where);
}

/* A place's callers (absent: none, as in reports of format 2). The frames are counted
 * from the array itself and bounded, whatever the report says: at most
 * MT_REPORT_MAX_FRAMES, as the schema states. report_release frees them. */
static void read_stack(reader_t *rd, const json_t *obj, mt_stack_t *s, const char *where)
{
    char sub[160];
    const json_t *frames = json_get(obj, "stack");
    if (frames == NULL)
        return;
    if (frames->type != JSON_ARRAY) {
        fail(rd, "%s.stack should be an array", where);
        return;
    }
    if (frames->count > MT_REPORT_MAX_FRAMES) {
        fail(rd, "%s.stack holds more than %d frames", where, MT_REPORT_MAX_FRAMES);
        return;
    }
    if (frames->count == 0)
        return;
    mt_frame_t *out = array_of(rd, frames->count, sizeof *out);
    if (out == NULL)
        return;
    s->frames = out;
    s->nframes = frames->count;
    for (size_t i = 0; i < frames->count && !rd->failed; i++) {
        snprintf(sub, sizeof sub, "%s.stack[%zu]", where, i);
        read_frame(rd, frames->items[i], &out[i], sub);
    }
}

static void read_place(reader_t *rd, const json_t *obj, mt_place_t *p, const char *where)
{
    memset(p, 0, sizeof *p);
    p->kind_id = MT_KIND_NONE;
    if (obj == NULL || obj->type == JSON_NULL)
        return;
    if (obj->type != JSON_OBJECT) {
        fail(rd, "%s should be an object or null", where);
        return;
    }
    p->kind = opt_string(rd, obj, "kind", where);
    p->kind_id = mt_kind_named(p->kind);
    p->file = opt_string(rd, obj, "file", where);
    p->line = line_of(rd, obj, where);
    p->func = opt_string(rd, obj, "function", where);
    p->owner = opt_string(rd, obj, "owner", where);
    p->module = opt_string(rd, obj, "module", where);
    p->pc = address_of(rd, obj, where);
    p->offset = u64(rd, obj, "offset", where);
    read_stack(rd, obj, &p->stack, where);
    p->inlined = inlined_of(rd, obj, where) && p->stack.nframes > 0;
}

static void read_apart(reader_t *rd, const json_t *obj, mt_apart_t *a, const char *where)
{
    a->bytes = u64(rd, obj, "bytes", where);
    a->blocks = u64(rd, obj, "blocks", where);
    a->sites = u64(rd, obj, "sites", where);
}

static void read_sample(reader_t *rd, const json_t *obj, mt_sample_t *s, const char *where)
{
    if (obj == NULL || obj->type != JSON_OBJECT) {
        fail(rd, "%s should be an object", where);
        return;
    }
    s->event = u64(rd, obj, "event", where);
    s->bytes = u64(rd, obj, "bytes", where);
    s->blocks = u64(rd, obj, "blocks", where);
    s->usec = u64(rd, obj, "usec", where);
}

static void read_leaks(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *leaks = need(rd, root, "leaks", JSON_OBJECT, "");
    if (leaks == NULL)
        return;
    r->leak_check = boolean(rd, leaks, "checked", "leaks");
    r->leaked_bytes = u64(rd, leaks, "bytes", "leaks");
    r->leaked_blocks = u64(rd, leaks, "blocks", "leaks");
    r->list_sites = (size_t)u64(rd, leaks, "listed_in_text", "leaks");
    const json_t *sites = need(rd, leaks, "sites", JSON_ARRAY, "leaks");
    if (sites != NULL && (r->sites = array_of(rd, sites->count, sizeof *r->sites)) != NULL) {
        for (size_t i = 0; i < sites->count && !rd->failed; i++) {
            const json_t *s = sites->items[i];
            mt_leak_site_t *out = &r->sites[i];
            snprintf(where, sizeof where, "leaks.sites[%zu]", i);
            if (s->type != JSON_OBJECT) {
                fail(rd, "%s should be an object", where);
                break;
            }
            out->bytes = u64(rd, s, "bytes", where);
            out->blocks = u64(rd, s, "blocks", where);
            read_place(rd, s, &out->where, where);
            const json_t *seqs = need(rd, s, "sequence_numbers", JSON_ARRAY, where);
            size_t max = sizeof out->seqs / sizeof out->seqs[0];
            if (seqs != NULL && seqs->count > max)
                fail(rd, "%s.sequence_numbers holds more than %zu numbers", where, max);
            for (size_t k = 0; seqs != NULL && k < seqs->count && k < max; k++) {
                int64_t v;
                if (!number_of(seqs->items[k], false, &v))
                    fail(rd, "%s.sequence_numbers[%zu] should be a whole number", where, k);
                out->seqs[out->nseqs++] = (uint64_t)v;
            }
        }
        r->nsites = sites->count;
    }
    const json_t *sup = need(rd, leaks, "suppressed", JSON_OBJECT, "leaks");
    if (sup != NULL) {
        read_apart(rd, sup, &r->suppressed, "leaks.suppressed");
        const json_t *rules = need(rd, sup, "rules", JSON_ARRAY, "leaks.suppressed");
        if (rules != NULL && (r->rules = array_of(rd, rules->count, sizeof *r->rules)) != NULL) {
            for (size_t i = 0; i < rules->count && !rd->failed; i++) {
                snprintf(where, sizeof where, "leaks.suppressed.rules[%zu]", i);
                const json_t *rule = need(rd, rules->items[i], "rule", JSON_STRING, where);
                r->rules[i].rule = rule != NULL ? rule->text : "";
                read_apart(rd, rules->items[i], &r->rules[i].hits, where);
            }
            r->nrules = rules->count;
        }
    }
    const json_t *sys = need(rd, leaks, "system", JSON_OBJECT, "leaks");
    if (sys != NULL)
        read_apart(rd, sys, &r->system, "leaks.system");
}

/* The allocation wrappers (absent: none), at most MT_REPORT_MAX_WRAPPERS. */
static void read_wrappers(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *list = json_get(root, "wrappers");
    if (list == NULL)
        return;
    if (list->type != JSON_ARRAY) {
        fail(rd, "wrappers should be an array");
        return;
    }
    if (list->count > MT_REPORT_MAX_WRAPPERS) {
        fail(rd, "wrappers holds more than %d functions", MT_REPORT_MAX_WRAPPERS);
        return;
    }
    if ((r->wrappers = array_of(rd, list->count, sizeof *r->wrappers)) == NULL)
        return;
    r->nwrappers = list->count;
    for (size_t i = 0; i < list->count && !rd->failed; i++) {
        snprintf(where, sizeof where, "wrappers[%zu]", i);
        read_frame(rd, list->items[i], &r->wrappers[i].fn, where);
        if (!rd->failed)
            r->wrappers[i].detected = boolean(rd, list->items[i], "detected", where);
    }
}

static void read_errors(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *errors = need(rd, root, "errors", JSON_OBJECT, "");
    if (errors == NULL)
        return;
    r->errors = (size_t)u64(rd, errors, "total", "errors");
    const json_t *kinds = need(rd, errors, "by_kind", JSON_OBJECT, "errors");
    if (kinds != NULL &&
        (r->error_kinds = array_of(rd, kinds->count, sizeof *r->error_kinds)) != NULL) {
        for (size_t i = 0; i < kinds->count; i++) {
            int64_t v = 0;
            if (!number_of(kinds->items[i], false, &v))
                fail(rd, "errors.by_kind.%s should be a whole number", kinds->keys[i]);
            r->error_kinds[i].name = kinds->keys[i];
            r->error_kinds[i].count = (uint64_t)v;
        }
        r->nerror_kinds = kinds->count;
    }
    const json_t *list = need(rd, errors, "list", JSON_ARRAY, "errors");
    if (list != NULL &&
        (r->error_list = array_of(rd, list->count, sizeof *r->error_list)) != NULL) {
        for (size_t i = 0; i < list->count && !rd->failed; i++) {
            const json_t *e = list->items[i];
            mt_report_error_t *out = &r->error_list[i];
            snprintf(where, sizeof where, "errors.list[%zu]", i);
            const json_t *kind = need(rd, e, "kind", JSON_STRING, where);
            out->kind = kind != NULL ? kind->text : "?";
            out->kind_id = mt_error_kind_named(out->kind);
            out->addr = address_of(rd, e, where);
            out->size = u64(rd, e, "size", where);
            out->seq = u64(rd, e, "sequence", where);
            out->thread = u64(rd, e, "thread", where);
            out->changed = u64(rd, e, "changed", where);
            out->extent = u64(rd, e, "extent", where);
            out->spans = json_get(e, "spans") != NULL ? u64(rd, e, "spans", where) : 0;
            out->pointer = address_member(rd, e, "pointer", where);
            int64_t offset = 0;
            if (!number_of(need(rd, e, "offset", JSON_NUMBER, where), true, &offset))
                fail(rd, "%s.offset should be a whole number", where);
            out->offset = offset;
            out->what = opt_string(rd, e, "what", where);
            out->what_id = mt_pointer_class_named(out->what);
            out->access = json_get(e, "access") != NULL ? opt_string(rd, e, "access", where) : NULL;
            char sub[96];
            snprintf(sub, sizeof sub, "%s.allocated_at", where);
            read_place(rd, json_get(e, "allocated_at"), &out->alloc, sub);
            snprintf(sub, sizeof sub, "%s.released_at", where);
            read_place(rd, json_get(e, "released_at"), &out->freed, sub);
            snprintf(sub, sizeof sub, "%s.found_at", where);
            read_place(rd, json_get(e, "found_at"), &out->found, sub);
        }
        r->nerror_list = list->count;
    }
    r->max_messages = u64(rd, errors, "max_messages", "errors");
    const json_t *quiet = need(rd, errors, "not_printed", JSON_ARRAY, "errors");
    if (quiet != NULL &&
        (r->not_printed = array_of(rd, quiet->count, sizeof *r->not_printed)) != NULL) {
        for (size_t i = 0; i < quiet->count && !rd->failed; i++) {
            const json_t *n = quiet->items[i];
            mt_not_printed_t *out = &r->not_printed[i];
            snprintf(where, sizeof where, "errors.not_printed[%zu]", i);
            const json_t *kind = need(rd, n, "kind", JSON_STRING, where);
            out->kind = kind != NULL ? kind->text : "?";
            out->count = u64(rd, n, "count", where);
            char sub[96];
            snprintf(sub, sizeof sub, "%s.found_at", where);
            read_place(rd, json_get(n, "found_at"), &out->found, sub);
        }
        r->nnot_printed = quiet->count;
    }
}

static void read_unwritten(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *u = need(rd, root, "unwritten", JSON_OBJECT, "");
    if (u == NULL)
        return;
    r->unwritten_check = boolean(rd, u, "checked", "unwritten");
    const json_t *sites = need(rd, u, "sites", JSON_ARRAY, "unwritten");
    if (sites == NULL || (r->unwritten = array_of(rd, sites->count, sizeof *r->unwritten)) == NULL)
        return;
    for (size_t i = 0; i < sites->count && !rd->failed; i++) {
        const json_t *s = sites->items[i];
        mt_unwritten_t *out = &r->unwritten[i];
        snprintf(where, sizeof where, "unwritten.sites[%zu]", i);
        if (s->type != JSON_OBJECT) {
            fail(rd, "%s should be an object", where);
            break;
        }
        out->blocks = u64(rd, s, "blocks", where);
        out->bytes = u64(rd, s, "bytes", where);
        out->unwritten = u64(rd, s, "unwritten", where);
        read_place(rd, s, &out->where, where);
    }
    r->nunwritten = sites->count;
}

static void read_timeline(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *t = need(rd, root, "timeline", JSON_OBJECT, "");
    if (t == NULL)
        return;
    read_sample(rd, json_get(t, "peak"), &r->peak, "timeline.peak");
    const json_t *samples = need(rd, t, "samples", JSON_ARRAY, "timeline");
    if (samples != NULL &&
        (r->samples = array_of(rd, samples->count, sizeof *r->samples)) != NULL) {
        for (size_t i = 0; i < samples->count; i++) {
            snprintf(where, sizeof where, "timeline.samples[%zu]", i);
            read_sample(rd, samples->items[i], &r->samples[i], where);
        }
        r->nsamples = samples->count;
    }
}

static void read_options(reader_t *rd, const json_t *root, mt_report_t *r)
{
    const json_t *opts = need(rd, root, "options", JSON_OBJECT, "");
    if (opts == NULL || (r->options = array_of(rd, opts->count, sizeof *r->options)) == NULL)
        return;
    for (size_t i = 0; i < opts->count; i++) {
        const json_t *v = opts->items[i];
        mt_option_value_t *o = &r->options[i];
        o->name = opts->keys[i];
        switch (v->type) {
        case JSON_BOOL:
            o->type = 'b';
            o->value = v->boolean ? "1" : "0";
            break;
        case JSON_NUMBER:
            o->type = 'n';
            o->value = v->text;
            break;
        case JSON_STRING:
            o->type = 's';
            o->value = v->text;
            break;
        default: fail(rd, "options.%s should be true, false, a number or a string", o->name);
        }
    }
    r->noptions = opts->count;
}

/* "printed": where the exit report's text went; absent from other reports (and older ones). */
static void read_printed(reader_t *rd, const json_t *root, mt_printed_t *p)
{
    const json_t *o = json_get(root, "printed");
    if (o == NULL)
        return;
    if (o->type != JSON_OBJECT) {
        fail(rd, "printed should be an object");
        return;
    }
    const json_t *to = need(rd, o, "to", JSON_STRING, "printed");
    p->to = to != NULL ? to->text : NULL;
    p->written = boolean(rd, o, "written", "printed");
    p->error = opt_string(rd, o, "error", "printed");
    p->error_number = u64(rd, o, "errno", "printed");
    p->device = u64(rd, o, "device", "printed");
    p->inode = u64(rd, o, "inode", "printed");
}

/* statistics.system: the blocks made inside system libraries, absent when there were none
 * (and in reports before memtrack counted them apart). */
static void read_system_counts(reader_t *rd, const json_t *stats, mt_system_counts_t *c)
{
    const json_t *s = json_get(stats, "system");
    if (s == NULL)
        return;
    if (s->type != JSON_OBJECT) {
        fail(rd, "statistics.system should be an object");
        return;
    }
    c->total_bytes = u64(rd, s, "total_bytes", "statistics.system");
    c->total_blocks = u64(rd, s, "total_blocks", "statistics.system");
    c->freed_bytes = u64(rd, s, "freed_bytes", "statistics.system");
    c->frees = u64(rd, s, "frees", "statistics.system");
}

static void read_stats(reader_t *rd, const json_t *root, memtrack_stats_t *st,
                       uint64_t *threads_running, mt_system_counts_t *system)
{
    const json_t *s = need(rd, root, "statistics", JSON_OBJECT, "");
    if (s == NULL)
        return;
    read_system_counts(rd, s, system);
    *threads_running =
        json_get(s, "threads_running") != NULL ? u64(rd, s, "threads_running", "statistics") : 0;
    st->current_bytes = (size_t)u64(rd, s, "current_bytes", "statistics");
    st->current_blocks = (size_t)u64(rd, s, "current_blocks", "statistics");
    st->peak_bytes = (size_t)u64(rd, s, "peak_bytes", "statistics");
    st->peak_blocks = (size_t)u64(rd, s, "peak_blocks", "statistics");
    st->total_bytes = (size_t)u64(rd, s, "total_bytes", "statistics");
    st->total_blocks = (size_t)u64(rd, s, "total_blocks", "statistics");
    st->frees = (size_t)u64(rd, s, "frees", "statistics");
    st->failed = (size_t)u64(rd, s, "failed", "statistics");
    st->errors = (size_t)u64(rd, s, "errors", "statistics");
}

bool report_from_json(const json_t *root, mt_report_t *r, char *err, size_t err_size)
{
    reader_t rd = {err, err_size, false};
    memset(r, 0, sizeof *r);
    if (root->type != JSON_OBJECT) {
        fail(&rd, "not a memtrack report (the top is not an object)");
        return false;
    }
    const json_t *format = json_get(root, "format");
    if (format == NULL || format->type != JSON_STRING ||
        strcmp(format->text, "memtrack-report") != 0) {
        fail(&rd, "not a memtrack report (no \"format\": \"memtrack-report\")");
        return false;
    }
    uint64_t version = u64(&rd, root, "version", "");
    if (!rd.failed && version > MT_REPORT_FORMAT_VERSION) {
        fail(&rd, "report format %llu is newer than this memtrack reads (%d)",
             (unsigned long long)version, MT_REPORT_FORMAT_VERSION);
        return false;
    }
    const json_t *v = need(&rd, root, "memtrack", JSON_STRING, "");
    r->version = v != NULL ? v->text : "";
    v = need(&rd, root, "program", JSON_STRING, "");
    r->program = v != NULL ? v->text : "";
    r->pid = u64(&rd, root, "pid", "");
    r->cwd = opt_string(&rd, root, "cwd", "report");
    v = need(&rd, root, "when", JSON_STRING, "");
    if (v != NULL) {
        if (strcmp(v->text, "exit") == 0)
            r->when = MT_WHEN_EXIT;
        else if (strcmp(v->text, "now") == 0)
            r->when = MT_WHEN_NOW;
        else if (strcmp(v->text, "since") == 0)
            r->when = MT_WHEN_SINCE;
        else
            fail(&rd, "when should be \"exit\", \"now\" or \"since\"");
    }
    r->since = u64(&rd, root, "since", "");
    read_printed(&rd, root, &r->printed);
    if (json_get(root, "partial") != NULL) { /* absent from a whole report */
        const json_t *partial = need(&rd, root, "partial", JSON_STRING, "");
        r->partial = partial != NULL ? partial->text : NULL;
    }
    read_stats(&rd, root, &r->stats, &r->threads_running, &r->system_counts);
    read_leaks(&rd, root, r);
    read_wrappers(&rd, root, r);
    read_errors(&rd, root, r);
    read_unwritten(&rd, root, r);
    read_timeline(&rd, root, r);
    read_options(&rd, root, r);
    return !rd.failed;
}

/* The frames read_stack made for a place (their array is the model's only const one). */
static void release_stack(mt_place_t *p)
{
    free((void *)p->stack.frames);
    p->stack.frames = NULL;
    p->stack.nframes = 0;
}

void report_release(mt_report_t *r)
{
    for (size_t i = 0; r->sites != NULL && i < r->nsites; i++)
        release_stack(&r->sites[i].where);
    for (size_t i = 0; r->error_list != NULL && i < r->nerror_list; i++) {
        release_stack(&r->error_list[i].alloc);
        release_stack(&r->error_list[i].freed);
        release_stack(&r->error_list[i].found);
    }
    for (size_t i = 0; r->not_printed != NULL && i < r->nnot_printed; i++)
        release_stack(&r->not_printed[i].found);
    for (size_t i = 0; r->unwritten != NULL && i < r->nunwritten; i++)
        release_stack(&r->unwritten[i].where);
    free(r->wrappers);
    free(r->sites);
    free(r->rules);
    free(r->error_kinds);
    free(r->error_list);
    free(r->not_printed);
    free(r->unwritten);
    free(r->samples);
    free(r->options);
    memset(r, 0, sizeof *r);
}
