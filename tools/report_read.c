/* report_read.c - reads a JSON report (tools/report.schema.json) back into the report
 * model (src/report/model.h), so the library's own renderers can render it again.
 *
 * Everything the JSON holds goes into the model and nothing else, so rendering the model
 * again gives what the program itself wrote. Strings stay in the parsed tree, which must
 * outlive the model. A report of a newer format version, or one that misses a field,
 * is refused with a message that names the field (escaped: it may quote the file).
 */
#include "json_read.h"
#include "report_read.h"
#include "errors/words.h"
#include "records/kinds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_apart(reader_t *rd, const json_t *obj, mt_apart_t *a, const char *where)
{
    a->bytes = rd_u64(rd, obj, "bytes", where);
    a->blocks = rd_u64(rd, obj, "blocks", where);
    a->sites = rd_u64(rd, obj, "sites", where);
}

static void read_sample(reader_t *rd, const json_t *obj, mt_sample_t *s, const char *where)
{
    if (obj == NULL || obj->type != JSON_OBJECT) {
        rd_fail(rd, "%s should be an object", where);
        return;
    }
    s->event = rd_u64(rd, obj, "event", where);
    s->bytes = rd_u64(rd, obj, "bytes", where);
    s->blocks = rd_u64(rd, obj, "blocks", where);
    s->usec = rd_u64(rd, obj, "usec", where);
}

/* A site's "held_by" (absent: nothing holds it, or the report was not classified). */
static void read_holder(reader_t *rd, const json_t *site, const mt_holder_t **out,
                        const char *where)
{
    char sub[96];
    const json_t *obj = json_get(site, "held_by");
    *out = NULL;
    if (obj == NULL)
        return;
    mt_holder_t *h = rd_array(rd, 1, sizeof *h);
    if (h == NULL)
        return;
    *out = h;
    snprintf(sub, sizeof sub, "%s.held_by", where);
    if (obj->type != JSON_OBJECT) {
        rd_fail(rd, "%s should be an object", sub);
        return;
    }
    const json_t *kind = rd_need(rd, obj, "kind", JSON_STRING, sub);
    h->kind = kind != NULL ? mt_holder_named(kind->text) : MT_HOLDER_NONE;
    if (kind != NULL && h->kind == MT_HOLDER_NONE)
        rd_fail(rd, "%s.kind: unknown holder \"%s\"", sub, kind->text);
    h->name = rd_string(rd, obj, "name", sub);
    h->func = rd_string(rd, obj, "function", sub);
    h->file = rd_string(rd, obj, "file", sub);
    h->line = rd_line(rd, obj, sub);
    h->module = rd_string(rd, obj, "module", sub);
    h->thread = rd_u64(rd, obj, "thread", sub);
    h->offset = rd_u64(rd, obj, "offset", sub);
    const json_t *chain = rd_need(rd, obj, "chain", JSON_ARRAY, sub);
    if (chain != NULL && chain->count > MT_HOLDER_CHAIN_MAX)
        rd_fail(rd, "%s.chain holds more than %u blocks", sub, MT_HOLDER_CHAIN_MAX);
    for (size_t k = 0; chain != NULL && k < chain->count && k < MT_HOLDER_CHAIN_MAX; k++) {
        int64_t v;
        if (!rd_number(chain->items[k], false, &v))
            rd_fail(rd, "%s.chain[%zu] should be a whole number", sub, k);
        h->chain[h->nchain++] = (uint64_t)v;
    }
    h->chain_length = rd_u64(rd, obj, "chain_length", sub);
    if (h->chain_length < h->nchain)
        rd_fail(rd, "%s.chain_length is shorter than its chain", sub);
}

static void read_leaks(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *leaks = rd_need(rd, root, "leaks", JSON_OBJECT, "");
    if (leaks == NULL)
        return;
    r->leak_check = rd_bool(rd, leaks, "checked", "leaks");
    r->leaked_bytes = rd_u64(rd, leaks, "bytes", "leaks");
    r->leaked_blocks = rd_u64(rd, leaks, "blocks", "leaks");
    r->list_sites = (size_t)rd_u64(rd, leaks, "listed_in_text", "leaks");
    /* Classified by the leak scan (format 5): absent in older reports and unscanned ones. */
    r->classified =
        json_get(leaks, "classified") != NULL && rd_bool(rd, leaks, "classified", "leaks");
    r->lost_only = r->classified && rd_bool(rd, leaks, "lost_only", "leaks");
    if (json_get(leaks, "threads_unread") != NULL)
        r->threads_unread = rd_u64(rd, leaks, "threads_unread", "leaks");
    const json_t *sites = rd_need(rd, leaks, "sites", JSON_ARRAY, "leaks");
    if (sites != NULL && (r->sites = rd_array(rd, sites->count, sizeof *r->sites)) != NULL) {
        for (size_t i = 0; i < sites->count && !rd->failed; i++) {
            const json_t *s = sites->items[i];
            mt_leak_site_t *out = &r->sites[i];
            snprintf(where, sizeof where, "leaks.sites[%zu]", i);
            if (s->type != JSON_OBJECT) {
                rd_fail(rd, "%s should be an object", where);
                break;
            }
            out->bytes = rd_u64(rd, s, "bytes", where);
            out->blocks = rd_u64(rd, s, "blocks", where);
            rd_place(rd, s, &out->where, where);
            const json_t *seqs = rd_need(rd, s, "sequence_numbers", JSON_ARRAY, where);
            size_t max = sizeof out->seqs / sizeof out->seqs[0];
            if (seqs != NULL && seqs->count > max)
                rd_fail(rd, "%s.sequence_numbers holds more than %zu numbers", where, max);
            for (size_t k = 0; seqs != NULL && k < seqs->count && k < max; k++) {
                int64_t v;
                if (!rd_number(seqs->items[k], false, &v))
                    rd_fail(rd, "%s.sequence_numbers[%zu] should be a whole number", where, k);
                out->seqs[out->nseqs++] = (uint64_t)v;
            }
            const json_t *cls = json_get(s, "class");
            out->leak_class = MT_LEAK_UNCLASSIFIED;
            if (cls != NULL &&
                (cls->type != JSON_STRING ||
                 (out->leak_class = mt_leak_class_named(cls->text)) == MT_LEAK_UNCLASSIFIED))
                rd_fail(rd,
                        "%s.class should be \"lost\", \"indirect\", \"possible\" or "
                        "\"reachable\"",
                        where);
            read_holder(rd, s, &out->held, where);
        }
        r->nsites = sites->count;
    }
    const json_t *sup = rd_need(rd, leaks, "suppressed", JSON_OBJECT, "leaks");
    if (sup != NULL) {
        read_apart(rd, sup, &r->suppressed, "leaks.suppressed");
        const json_t *rules = rd_need(rd, sup, "rules", JSON_ARRAY, "leaks.suppressed");
        if (rules != NULL && (r->rules = rd_array(rd, rules->count, sizeof *r->rules)) != NULL) {
            for (size_t i = 0; i < rules->count && !rd->failed; i++) {
                snprintf(where, sizeof where, "leaks.suppressed.rules[%zu]", i);
                const json_t *rule = rd_need(rd, rules->items[i], "rule", JSON_STRING, where);
                r->rules[i].rule = rule != NULL ? rule->text : "";
                read_apart(rd, rules->items[i], &r->rules[i].hits, where);
            }
            r->nrules = rules->count;
        }
    }
    const json_t *sys = rd_need(rd, leaks, "system", JSON_OBJECT, "leaks");
    if (sys != NULL)
        read_apart(rd, sys, &r->system, "leaks.system");
    const json_t *held = r->lost_only ? rd_need(rd, leaks, "held", JSON_OBJECT, "leaks") : NULL;
    if (held != NULL)
        read_apart(rd, held, &r->held_apart, "leaks.held");
}

/* The allocation wrappers (absent: none), at most MT_REPORT_MAX_WRAPPERS. */
static void read_wrappers(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *list = json_get(root, "wrappers");
    if (list == NULL)
        return;
    if (list->type != JSON_ARRAY) {
        rd_fail(rd, "wrappers should be an array");
        return;
    }
    if (list->count > MT_REPORT_MAX_WRAPPERS) {
        rd_fail(rd, "wrappers holds more than %d functions", MT_REPORT_MAX_WRAPPERS);
        return;
    }
    if ((r->wrappers = rd_array(rd, list->count, sizeof *r->wrappers)) == NULL)
        return;
    r->nwrappers = list->count;
    for (size_t i = 0; i < list->count && !rd->failed; i++) {
        snprintf(where, sizeof where, "wrappers[%zu]", i);
        rd_frame(rd, list->items[i], &r->wrappers[i].fn, where);
        if (!rd->failed)
            r->wrappers[i].detected = rd_bool(rd, list->items[i], "detected", where);
    }
}

/* What the call stacks could not show (absent: nothing). */
static void read_stack_notes(reader_t *rd, const json_t *root, mt_report_t *r)
{
    const json_t *notes = json_get(root, "stack_notes");
    if (notes == NULL)
        return;
    if (notes->type != JSON_OBJECT) {
        rd_fail(rd, "stack_notes should be an object");
        return;
    }
    r->stacks_unwalked = rd_u64(rd, notes, "unwalked", "stack_notes");
    r->stacks_no_frame_pointers = rd_bool(rd, notes, "no_frame_pointers", "stack_notes");
    if (json_get(notes, "unavailable") != NULL)
        r->stacks_unavailable = rd_string(rd, notes, "unavailable", "stack_notes");
}

static void read_errors(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *errors = rd_need(rd, root, "errors", JSON_OBJECT, "");
    if (errors == NULL)
        return;
    r->errors = (size_t)rd_u64(rd, errors, "total", "errors");
    const json_t *kinds = rd_need(rd, errors, "by_kind", JSON_OBJECT, "errors");
    if (kinds != NULL &&
        (r->error_kinds = rd_array(rd, kinds->count, sizeof *r->error_kinds)) != NULL) {
        for (size_t i = 0; i < kinds->count; i++) {
            int64_t v = 0;
            if (!rd_number(kinds->items[i], false, &v))
                rd_fail(rd, "errors.by_kind.%s should be a whole number", kinds->keys[i]);
            r->error_kinds[i].name = kinds->keys[i];
            r->error_kinds[i].count = (uint64_t)v;
        }
        r->nerror_kinds = kinds->count;
    }
    const json_t *list = rd_need(rd, errors, "list", JSON_ARRAY, "errors");
    if (list != NULL &&
        (r->error_list = rd_array(rd, list->count, sizeof *r->error_list)) != NULL) {
        for (size_t i = 0; i < list->count && !rd->failed; i++) {
            const json_t *e = list->items[i];
            mt_report_error_t *out = &r->error_list[i];
            snprintf(where, sizeof where, "errors.list[%zu]", i);
            const json_t *kind = rd_need(rd, e, "kind", JSON_STRING, where);
            out->kind = kind != NULL ? kind->text : "?";
            out->kind_id = mt_error_kind_named(out->kind);
            out->addr = rd_address(rd, e, where);
            out->size = rd_u64(rd, e, "size", where);
            out->seq = rd_u64(rd, e, "sequence", where);
            out->thread = rd_u64(rd, e, "thread", where);
            out->changed = rd_u64(rd, e, "changed", where);
            out->extent = rd_u64(rd, e, "extent", where);
            out->spans = json_get(e, "spans") != NULL ? rd_u64(rd, e, "spans", where) : 0;
            out->pointer = rd_address_member(rd, e, "pointer", where);
            int64_t offset = 0;
            if (!rd_number(rd_need(rd, e, "offset", JSON_NUMBER, where), true, &offset))
                rd_fail(rd, "%s.offset should be a whole number", where);
            out->offset = offset;
            out->what = rd_string(rd, e, "what", where);
            out->what_id = mt_pointer_class_named(out->what);
            out->access = json_get(e, "access") != NULL ? rd_string(rd, e, "access", where) : NULL;
            char sub[96];
            snprintf(sub, sizeof sub, "%s.allocated_at", where);
            rd_place(rd, json_get(e, "allocated_at"), &out->alloc, sub);
            snprintf(sub, sizeof sub, "%s.released_at", where);
            rd_place(rd, json_get(e, "released_at"), &out->freed, sub);
            snprintf(sub, sizeof sub, "%s.found_at", where);
            rd_place(rd, json_get(e, "found_at"), &out->found, sub);
        }
        r->nerror_list = list->count;
    }
    r->max_messages = rd_u64(rd, errors, "max_messages", "errors");
    const json_t *quiet = rd_need(rd, errors, "not_printed", JSON_ARRAY, "errors");
    if (quiet != NULL &&
        (r->not_printed = rd_array(rd, quiet->count, sizeof *r->not_printed)) != NULL) {
        for (size_t i = 0; i < quiet->count && !rd->failed; i++) {
            const json_t *n = quiet->items[i];
            mt_not_printed_t *out = &r->not_printed[i];
            snprintf(where, sizeof where, "errors.not_printed[%zu]", i);
            const json_t *kind = rd_need(rd, n, "kind", JSON_STRING, where);
            out->kind = kind != NULL ? kind->text : "?";
            out->count = rd_u64(rd, n, "count", where);
            char sub[96];
            snprintf(sub, sizeof sub, "%s.found_at", where);
            rd_place(rd, json_get(n, "found_at"), &out->found, sub);
        }
        r->nnot_printed = quiet->count;
    }
}

static void read_unwritten(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *u = rd_need(rd, root, "unwritten", JSON_OBJECT, "");
    if (u == NULL)
        return;
    r->unwritten_check = rd_bool(rd, u, "checked", "unwritten");
    const json_t *sites = rd_need(rd, u, "sites", JSON_ARRAY, "unwritten");
    if (sites == NULL || (r->unwritten = rd_array(rd, sites->count, sizeof *r->unwritten)) == NULL)
        return;
    for (size_t i = 0; i < sites->count && !rd->failed; i++) {
        const json_t *s = sites->items[i];
        mt_unwritten_t *out = &r->unwritten[i];
        snprintf(where, sizeof where, "unwritten.sites[%zu]", i);
        if (s->type != JSON_OBJECT) {
            rd_fail(rd, "%s should be an object", where);
            break;
        }
        out->blocks = rd_u64(rd, s, "blocks", where);
        out->bytes = rd_u64(rd, s, "bytes", where);
        out->unwritten = rd_u64(rd, s, "unwritten", where);
        rd_place(rd, s, &out->where, where);
    }
    r->nunwritten = sites->count;
}

/* The allocations made to fail on purpose (absent: no fail_ option was set). */
static void read_injected(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *in = json_get(root, "injected");
    if (in == NULL)
        return;
    if (in->type != JSON_OBJECT) {
        rd_fail(rd, "injected should be an object");
        return;
    }
    mt_injected_t *out = &r->injected;
    out->armed = true;
    out->counted = rd_u64(rd, in, "counted", "injected");
    out->failed = rd_u64(rd, in, "failed", "injected");
    out->windows = rd_u64(rd, in, "windows", "injected");
    out->in_windows = rd_u64(rd, in, "in_windows", "injected");
    out->seed = rd_u64(rd, in, "seed", "injected");
    const json_t *sites = rd_need(rd, in, "sites", JSON_ARRAY, "injected");
    if (sites == NULL || (out->sites = rd_array(rd, sites->count, sizeof *out->sites)) == NULL)
        return;
    for (size_t i = 0; i < sites->count && !rd->failed; i++) {
        const json_t *s = sites->items[i];
        mt_injected_site_t *g = &out->sites[i];
        snprintf(where, sizeof where, "injected.sites[%zu]", i);
        if (s->type != JSON_OBJECT) {
            rd_fail(rd, "%s should be an object", where);
            break;
        }
        g->failures = rd_u64(rd, s, "failures", where);
        g->bytes = rd_u64(rd, s, "bytes", where);
        rd_place(rd, s, &g->where, where);
        const json_t *nths = rd_need(rd, s, "allocations", JSON_ARRAY, where);
        size_t max = sizeof g->nths / sizeof g->nths[0];
        if (nths != NULL && nths->count > max)
            rd_fail(rd, "%s.allocations holds more than %zu numbers", where, max);
        for (size_t k = 0; nths != NULL && k < nths->count && k < max; k++) {
            int64_t v;
            if (!rd_number(nths->items[k], false, &v))
                rd_fail(rd, "%s.allocations[%zu] should be a whole number", where, k);
            g->nths[g->nnths++] = (uint64_t)v;
        }
        out->nsites = i + 1;
    }
}

static void read_timeline(reader_t *rd, const json_t *root, mt_report_t *r)
{
    char where[64];
    const json_t *t = rd_need(rd, root, "timeline", JSON_OBJECT, "");
    if (t == NULL)
        return;
    read_sample(rd, json_get(t, "peak"), &r->peak, "timeline.peak");
    const json_t *samples = rd_need(rd, t, "samples", JSON_ARRAY, "timeline");
    if (samples != NULL &&
        (r->samples = rd_array(rd, samples->count, sizeof *r->samples)) != NULL) {
        for (size_t i = 0; i < samples->count; i++) {
            snprintf(where, sizeof where, "timeline.samples[%zu]", i);
            read_sample(rd, samples->items[i], &r->samples[i], where);
        }
        r->nsamples = samples->count;
    }
}

static void read_options(reader_t *rd, const json_t *root, mt_report_t *r)
{
    const json_t *opts = rd_need(rd, root, "options", JSON_OBJECT, "");
    if (opts == NULL || (r->options = rd_array(rd, opts->count, sizeof *r->options)) == NULL)
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
        default: rd_fail(rd, "options.%s should be true, false, a number or a string", o->name);
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
        rd_fail(rd, "printed should be an object");
        return;
    }
    const json_t *to = rd_need(rd, o, "to", JSON_STRING, "printed");
    p->to = to != NULL ? to->text : NULL;
    p->written = rd_bool(rd, o, "written", "printed");
    p->error = rd_string(rd, o, "error", "printed");
    p->error_number = rd_u64(rd, o, "errno", "printed");
    p->device = rd_u64(rd, o, "device", "printed");
    p->inode = rd_u64(rd, o, "inode", "printed");
}

/* statistics.system: the blocks made inside system libraries, absent when there were none
 * (and in reports before memtrack counted them apart). */
static void read_system_counts(reader_t *rd, const json_t *stats, mt_system_counts_t *c)
{
    const json_t *s = json_get(stats, "system");
    if (s == NULL)
        return;
    if (s->type != JSON_OBJECT) {
        rd_fail(rd, "statistics.system should be an object");
        return;
    }
    c->total_bytes = rd_u64(rd, s, "total_bytes", "statistics.system");
    c->total_blocks = rd_u64(rd, s, "total_blocks", "statistics.system");
    c->freed_bytes = rd_u64(rd, s, "freed_bytes", "statistics.system");
    c->frees = rd_u64(rd, s, "frees", "statistics.system");
}

static void read_stats(reader_t *rd, const json_t *root, memtrack_stats_t *st,
                       uint64_t *threads_running, mt_system_counts_t *system)
{
    const json_t *s = rd_need(rd, root, "statistics", JSON_OBJECT, "");
    if (s == NULL)
        return;
    read_system_counts(rd, s, system);
    *threads_running =
        json_get(s, "threads_running") != NULL ? rd_u64(rd, s, "threads_running", "statistics") : 0;
    st->current_bytes = (size_t)rd_u64(rd, s, "current_bytes", "statistics");
    st->current_blocks = (size_t)rd_u64(rd, s, "current_blocks", "statistics");
    st->peak_bytes = (size_t)rd_u64(rd, s, "peak_bytes", "statistics");
    st->peak_blocks = (size_t)rd_u64(rd, s, "peak_blocks", "statistics");
    st->total_bytes = (size_t)rd_u64(rd, s, "total_bytes", "statistics");
    st->total_blocks = (size_t)rd_u64(rd, s, "total_blocks", "statistics");
    st->frees = (size_t)rd_u64(rd, s, "frees", "statistics");
    st->failed = (size_t)rd_u64(rd, s, "failed", "statistics");
    st->errors = (size_t)rd_u64(rd, s, "errors", "statistics");
}

bool report_from_json(const json_t *root, mt_report_t *r, char *err, size_t err_size)
{
    reader_t rd = {err, err_size, false};
    memset(r, 0, sizeof *r);
    if (root->type != JSON_OBJECT) {
        rd_fail(&rd, "not a memtrack report (the top is not an object)");
        return false;
    }
    const json_t *format = json_get(root, "format");
    if (format == NULL || format->type != JSON_STRING ||
        strcmp(format->text, "memtrack-report") != 0) {
        rd_fail(&rd, "not a memtrack report (no \"format\": \"memtrack-report\")");
        return false;
    }
    uint64_t version = rd_u64(&rd, root, "version", "");
    if (!rd.failed && version > MT_REPORT_FORMAT_VERSION) {
        rd_fail(&rd, "report format %llu is newer than this memtrack reads (%d)",
                (unsigned long long)version, MT_REPORT_FORMAT_VERSION);
        return false;
    }
    const json_t *v = rd_need(&rd, root, "memtrack", JSON_STRING, "");
    r->version = v != NULL ? v->text : "";
    v = rd_need(&rd, root, "program", JSON_STRING, "");
    r->program = v != NULL ? v->text : "";
    r->pid = rd_u64(&rd, root, "pid", "");
    r->cwd = rd_string(&rd, root, "cwd", "report");
    v = rd_need(&rd, root, "when", JSON_STRING, "");
    if (v != NULL) {
        if (strcmp(v->text, "exit") == 0)
            r->when = MT_WHEN_EXIT;
        else if (strcmp(v->text, "now") == 0)
            r->when = MT_WHEN_NOW;
        else if (strcmp(v->text, "since") == 0)
            r->when = MT_WHEN_SINCE;
        else if (strcmp(v->text, "lost") == 0)
            r->when = MT_WHEN_LOST;
        else
            rd_fail(&rd, "when should be \"exit\", \"now\", \"since\" or \"lost\"");
    }
    r->since = rd_u64(&rd, root, "since", "");
    read_printed(&rd, root, &r->printed);
    if (json_get(root, "partial") != NULL) { /* absent from a whole report */
        const json_t *partial = rd_need(&rd, root, "partial", JSON_STRING, "");
        r->partial = partial != NULL ? partial->text : NULL;
    }
    read_stats(&rd, root, &r->stats, &r->threads_running, &r->system_counts);
    read_leaks(&rd, root, r);
    read_wrappers(&rd, root, r);
    read_stack_notes(&rd, root, r);
    read_errors(&rd, root, r);
    read_unwritten(&rd, root, r);
    read_injected(&rd, root, r);
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
    for (size_t i = 0; r->sites != NULL && i < r->nsites; i++) {
        release_stack(&r->sites[i].where);
        free((void *)r->sites[i].held);
    }
    for (size_t i = 0; r->error_list != NULL && i < r->nerror_list; i++) {
        release_stack(&r->error_list[i].alloc);
        release_stack(&r->error_list[i].freed);
        release_stack(&r->error_list[i].found);
    }
    for (size_t i = 0; r->not_printed != NULL && i < r->nnot_printed; i++)
        release_stack(&r->not_printed[i].found);
    for (size_t i = 0; r->unwritten != NULL && i < r->nunwritten; i++)
        release_stack(&r->unwritten[i].where);
    for (size_t i = 0; r->injected.sites != NULL && i < r->injected.nsites; i++)
        release_stack(&r->injected.sites[i].where);
    free(r->injected.sites);
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

/* The whole of f, NUL-terminated; NULL when out of memory. */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16;
    char *text = malloc(cap);
    *len = 0;
    for (size_t n; text != NULL && (n = fread(text + *len, 1, cap - *len - 1, f)) > 0;) {
        *len += n;
        if (*len + 1 == cap) {
            char *bigger = realloc(text, cap * 2);
            if (bigger == NULL) {
                free(text);
                return NULL;
            }
            text = bigger;
            cap *= 2;
        }
    }
    if (text != NULL)
        text[*len] = '\0';
    return text;
}

/* "PROG: PATH: what is wrong", escaped: the message may quote the report's own words (a
 * member's name), which must not reach the terminal as control characters. */
static void say_bad_report(const char *prog, const char *path, const char *sep, const char *err)
{
    mt_buf_t b;
    mt_buf_init(&b, STDERR_FILENO);
    mt_buf_fmt(&b, "%-s: %-s%s%-s\n", prog, path, sep, err);
    mt_buf_flush(&b);
}

bool report_load(const char *path, report_file_t *out, const char *prog)
{
    char err[512];
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        if (prog != NULL)
            fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return false;
    }
    size_t len;
    char *text = read_all(f, &len);
    if (f != stdin)
        fclose(f);
    if (text == NULL) {
        if (prog != NULL)
            fprintf(stderr, "%s: %s: out of memory\n", prog, path);
        return false;
    }
    out->root = json_parse(text, len, err, sizeof err);
    free(text);
    if (out->root == NULL) {
        if (prog != NULL)
            say_bad_report(prog, path, " is not valid JSON: ", err);
        return false;
    }
    if (!report_from_json(out->root, &out->model, err, sizeof err)) {
        if (prog != NULL)
            say_bad_report(prog, path, ": ", err);
        report_release(&out->model);
        json_free(out->root);
        return false;
    }
    return true;
}

void report_unload(report_file_t *l)
{
    report_release(&l->model);
    json_free(l->root);
}
