/* render_sarif.c - leaks and errors as SARIF 2.1.0, so code-scanning services show each
 * one at its source line.
 *
 * One result per leak site (rule "leak/KIND", level warning), per logged error (rule
 * "error/KIND", level error) and per place where allocations failed on purpose (options
 * fail_*: rule "injected/KIND", level note, so a user sees which error paths ran). A result's
 * location is a source line when the site has one, and resolves from the run's directory: a
 * file below it relative to SRCROOT, the directory the program ran in (originalUriBaseIds),
 * any other by an absolute URI (a relative file name is relative to its unit's compilation
 * directory: artifact()). An error is shown where it was found when that is a source line,
 * else where its block was allocated; its other sites are related locations. Sites known
 * only by address get a logical location (function) and their module as the artifact. A
 * place with callers gives its result a stack and a code flow (SARIF's result.stacks and
 * result.codeFlows): a leak those of its allocation, an error those of its allocation, its
 * release and what found it. Rules are listed once each, in the order results use them.
 */
#include <inttypes.h>
#include <string.h>

#include "errors/format.h"
#include "records/kinds.h" /* MT_KIND_NONE */

#define MAX_RULES 128

typedef enum { RULE_LEAK, RULE_ERROR, RULE_INJECTED } rule_family_t;

typedef struct rule {
    rule_family_t family; /* leak/KIND, error/KIND, injected/KIND */
    const char *kind;     /* an allocation kind or an error kind */
} rule_t;

static const char *const family_prefixes[] = {"leak/", "error/", "injected/"};
static const char *const family_levels[] = {"warning", "error", "note"};

typedef struct rules {
    rule_t list[MAX_RULES];
    size_t count;
} rules_t;

/* The rule id's last part: the kind with "[]" spelled "-array", and blanks, slashes, quotes
 * and every byte outside printable ASCII as '-'. */
static void buf_rule_kind(mt_buf_t *b, const char *kind)
{
    for (const char *p = kind != NULL ? kind : "unknown"; *p != '\0'; p++) {
        if (p[0] == '[' && p[1] == ']') {
            mt_buf_str(b, "-array");
            p++;
        } else if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || *p == '/' ||
                   *p == '"' || *p == '\\') {
            mt_buf_char(b, '-');
        } else {
            mt_buf_char(b, *p);
        }
    }
}

static void buf_rule_id(mt_buf_t *b, const rule_t *r)
{
    mt_buf_str(b, family_prefixes[r->family]);
    buf_rule_kind(b, r->kind);
}

static bool same_kind(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The rule's index, added when new; MAX_RULES when the table is full. */
static size_t rule_index(rules_t *rs, rule_family_t family, const char *kind)
{
    for (size_t i = 0; i < rs->count; i++)
        if (rs->list[i].family == family && same_kind(rs->list[i].kind, kind))
            return i;
    if (rs->count == MAX_RULES)
        return MAX_RULES;
    rs->list[rs->count].family = family;
    rs->list[rs->count].kind = kind;
    return rs->count++;
}

/* The absolute path of file, with "." and ".." taken out: as it is, or joined to dir (its
 * unit's compilation directory), or else to the run's directory; 0 when it does not fit in
 * out[0..room) or there is no directory to join. */
static size_t absolute_path(char *out, size_t room, const char *file, const char *dir,
                            const char *cwd)
{
    const char *parts[2] = {file[0] == '/' ? NULL : dir != NULL ? dir : cwd, file};
    if (file[0] != '/' && parts[0] == NULL)
        return 0;
    size_t n = 0;
    for (int k = 0; k < 2; k++) {
        for (const char *p = parts[k]; p != NULL && *p != '\0';) {
            while (*p == '/')
                p++;
            size_t len = strcspn(p, "/");
            if (len == 0 || (len == 1 && p[0] == '.')) {
                /* nothing to add */
            } else if (len == 2 && p[0] == '.' && p[1] == '.') {
                while (n > 0 && out[n - 1] != '/')
                    n--; /* back to the parent (the root's parent is the root) */
                if (n > 0)
                    n--;
            } else {
                if (n + 1 + len + 1 > room)
                    return 0;
                out[n++] = '/';
                memcpy(out + n, p, len);
                n += len;
            }
            p += len;
        }
    }
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    return n;
}

/* An artifactLocation that resolves from the run's directory wherever the program was
 * built: a file below the run's directory relative to SRCROOT (which code-scanning services
 * map to the repository), any other as an absolute file URI. A relative file is relative to
 * its unit's compilation directory (the debug information's; an out-of-tree build's
 * "../src/x.c"), else to the run's. */
static void artifact(mt_buf_t *b, const char *path, const char *dir, const char *cwd)
{
    char full[2048];
    size_t n = absolute_path(full, sizeof full, path, dir, cwd);
    size_t root = cwd != NULL ? strlen(cwd) : 0;
    while (root > 0 && cwd[root - 1] == '/')
        root--;
    mt_buf_str(b, "\"artifactLocation\": {\"uri\": \"");
    if (n == 0) { /* no directory known, or too long: as the compiler named it */
        mt_buf_uri_path(b, path);
        mt_buf_str(b, path[0] == '/' ? "\"}" : "\", \"uriBaseId\": \"SRCROOT\"}");
    } else if (root > 0 && n > root + 1 && strncmp(full, cwd, root) == 0 && full[root] == '/') {
        mt_buf_uri_path(b, full + root + 1);
        mt_buf_str(b, "\", \"uriBaseId\": \"SRCROOT\"}");
    } else {
        mt_buf_str(b, "file://");
        mt_buf_uri_path(b, full);
        mt_buf_str(b, "\"}");
    }
}

/* A SARIF location object for p; message_text may be NULL. */
static void location(mt_buf_t *b, const mt_place_t *p, const char *message_text, int id,
                     const char *cwd)
{
    mt_buf_char(b, '{');
    if (id >= 0) {
        mt_buf_fmt(b, "\"id\": %" PRIu64 ", ", (uint64_t)id);
    }
    if (p->file != NULL) {
        mt_buf_str(b, "\"physicalLocation\": {");
        artifact(b, p->file, p->dir, cwd);
        if (p->line > 0) {
            mt_buf_fmt(b, ", \"region\": {\"startLine\": %" PRIu64 "}", (uint64_t)p->line);
        }
        mt_buf_str(b, "}");
    } else if (p->module != NULL) {
        mt_buf_str(b, "\"physicalLocation\": {");
        artifact(b, p->module, NULL, cwd);
        mt_buf_fmt(b, ", \"address\": {\"absoluteAddress\": %" PRIu64 "}}", p->pc);
    }
    if (p->func != NULL) {
        mt_buf_str(b, p->file != NULL || p->module != NULL ? ", " : "");
        mt_buf_str(b, "\"logicalLocations\": [{\"name\": ");
        mt_buf_json_str(b, p->func);
        mt_buf_str(b, ", \"kind\": \"function\"}]");
    }
    if (message_text != NULL) {
        mt_buf_str(b, p->file != NULL || p->module != NULL || p->func != NULL ? ", " : "");
        mt_buf_str(b, "\"message\": {\"text\": ");
        mt_buf_json_str(b, message_text);
        mt_buf_char(b, '}');
    }
    mt_buf_char(b, '}');
}

static bool has_location(const mt_place_t *p)
{
    return p->file != NULL || p->module != NULL || p->func != NULL;
}

/* A stackFrame: where the code is, and the shared object holding it when that is known.
 * Code inlined into the next frame's function says so in the frame's property bag, as
 * the JSON report does ("inlined"): SARIF has no word of its own for it. */
static void stack_frame(mt_buf_t *b, const mt_place_t *p, const char *cwd)
{
    mt_buf_str(b, "{\"location\": ");
    location(b, p, NULL, -1, cwd);
    if (p->module != NULL) {
        mt_buf_str(b, ", \"module\": ");
        mt_buf_json_str(b, p->module);
    }
    if (p->inlined)
        mt_buf_str(b, ", \"properties\": {\"inlined\": true}");
    mt_buf_char(b, '}');
}

/* Which of an error's places a stack is of: the message says it. */
enum stack_of { STACK_ALLOC, STACK_RELEASE, STACK_FOUND, STACK_FAILED, STACK_TEXT };

/* A place whose callers a result shows, and what it is to the result (STACK_TEXT: text
 * says it, then the place). */
typedef struct stacked {
    const mt_place_t *place;
    enum stack_of of;
    const char *text;
} stacked_t;

/* The message of a stack or code flow: the place it ends at ("allocated at a.c:3 in f()"),
 * so a viewer that lists several tells them apart. */
static void stack_message(mt_buf_t *b, const stacked_t *s)
{
    mt_buf_str(b, "\"message\": {\"text\": ");
    mt_buf_json_begin(b);
    switch (s->of) {
    case STACK_ALLOC: mt_buf_str(b, "allocated at "); break;
    case STACK_RELEASE: mt_buf_str(b, "released at "); break;
    case STACK_FOUND: mt_buf_str(b, "found by "); break;
    case STACK_FAILED: mt_buf_str(b, "failed on purpose at "); break;
    case STACK_TEXT: mt_buf_str(b, s->text); break;
    }
    if (s->of == STACK_FOUND)
        mt_buf_found_by(b, s->place, 0);
    else
        mt_buf_place(b, s->place);
    mt_buf_json_end(b);
    mt_buf_char(b, '}');
}

/* A caller, located as a place without a kind is: the same fields. */
static mt_place_t caller_place(const mt_frame_t *f)
{
    mt_place_t q = {.kind_id = MT_KIND_NONE,
                    .file = f->file,
                    .dir = f->dir,
                    .line = f->line,
                    .func = f->func,
                    .module = f->module,
                    .pc = f->pc,
                    .offset = f->offset,
                    .inlined = f->inlined};
    return q;
}

/* The calls that led to the places of a result with callers, in SARIF's two forms, as
 * viewers read one or the other: result.stacks, innermost first (the place itself, then
 * each caller), and result.codeFlows, the calls in the order they ran (outermost first,
 * nestingLevel the depth), which code-scanning services draw as a path. A place without
 * callers adds neither: the result's locations show it already. */
static void stacks(mt_buf_t *b, const stacked_t *list, size_t n, const char *cwd)
{
    bool open = false;
    for (size_t k = 0; k < n; k++) {
        const mt_place_t *p = list[k].place;
        if (p->stack.nframes == 0)
            continue;
        mt_buf_str(b, open ? ",\n          {" : ", \"stacks\": [\n          {");
        open = true;
        stack_message(b, &list[k]);
        mt_buf_str(b, ", \"frames\": [");
        stack_frame(b, p, cwd);
        for (size_t i = 0; i < p->stack.nframes; i++) {
            mt_place_t q = caller_place(&p->stack.frames[i]);
            mt_buf_str(b, ",\n            ");
            stack_frame(b, &q, cwd);
        }
        mt_buf_str(b, "]}");
    }
    if (!open)
        return;
    mt_buf_str(b, "], \"codeFlows\": [");
    open = false;
    for (size_t k = 0; k < n; k++) {
        const mt_place_t *p = list[k].place;
        size_t depth = p->stack.nframes;
        if (depth == 0)
            continue;
        mt_buf_str(b, open ? ",\n          {" : "\n          {");
        open = true;
        stack_message(b, &list[k]);
        mt_buf_str(b, ", \"threadFlows\": [{\"locations\": [");
        for (size_t level = 0; level <= depth; level++) {
            mt_place_t q;
            if (level < depth)
                q = caller_place(&p->stack.frames[depth - 1 - level]);
            mt_buf_str(b, level == 0 ? "\n            {\"location\": "
                                     : ",\n            {\"location\": ");
            location(b, level < depth ? &q : p, NULL, -1, cwd);
            mt_buf_fmt(b, ", \"nestingLevel\": %" PRIu64 "}", (uint64_t)level);
        }
        mt_buf_str(b, "]}]}");
    }
    mt_buf_char(b, ']');
}

/* level: NULL for the family's own, or "note" (a leak the program still points at). */
static void result_head(mt_buf_t *b, bool *first, rules_t *rs, rule_family_t family,
                        const char *kind, const char *level)
{
    size_t index = rule_index(rs, family, kind);
    rule_t r = {family, kind};
    mt_buf_str(b, *first ? "\n        {" : ",\n        {");
    *first = false;
    mt_buf_str(b, "\"ruleId\": \"");
    buf_rule_id(b, &r);
    mt_buf_str(b, "\", ");
    if (index < MAX_RULES) {
        mt_buf_fmt(b, "\"ruleIndex\": %" PRIu64 ", ", (uint64_t)index);
    }
    mt_buf_fmt(b, "\"level\": \"%s\", ", level != NULL ? level : family_levels[family]);
}

/* A stable identity for code-scanning services: kind, file and function, not the line,
 * so a leak keeps its identity when lines above it move. */
static void fingerprint(mt_buf_t *b, const char *what, const mt_place_t *p)
{
    mt_buf_str(b, ", \"partialFingerprints\": {\"memtrackSite/v1\": ");
    mt_buf_json_begin(b);
    mt_buf_fmt(b, "%s:%s:%s:%s", what, p->kind != NULL ? p->kind : "",
               p->file != NULL     ? p->file
               : p->module != NULL ? p->module
                                   : "",
               p->func != NULL ? p->func : "");
    mt_buf_json_end(b);
    mt_buf_char(b, '}');
}

static void leak_result(mt_buf_t *b, const mt_report_t *r, const mt_leak_site_t *s, bool *first,
                        rules_t *rs)
{
    mt_buf_t *m = b; /* the message is written into the report, escaped as it goes */
    result_head(b, first, rs, RULE_LEAK, s->where.kind,
                s->leak_class == MT_LEAK_REACHABLE ? "note" : NULL);
    mt_buf_str(b, "\"message\": {\"text\": ");
    mt_buf_json_begin(b);
    mt_buf_count(m, s->bytes, "byte", "bytes");
    mt_buf_str(m, " in ");
    mt_buf_count(m, s->blocks, "block", "blocks");
    mt_buf_str(m, " allocated by ");
    mt_buf_str(m, s->where.kind != NULL ? s->where.kind : "?");
    if (s->where.owner != NULL) {
        mt_buf_fmt(m, " from \"%s\"", s->where.owner);
    }
    mt_buf_str(m, " at ");
    mt_buf_place(m, &s->where);
    mt_buf_str(m, r->when == MT_WHEN_EXIT
                      ? s->blocks == 1 ? " is never released" : " are never released"
                      : " still live");
    if (s->nseqs > 0) {
        mt_buf_str(m, " (block");
        mt_buf_str(m, s->nseqs > 1 ? "s" : "");
        for (unsigned i = 0; i < s->nseqs; i++) {
            mt_buf_str(m, i == 0 ? " #" : ", #");
            mt_buf_u64(m, s->seqs[i]);
        }
        if (s->blocks > s->nseqs) {
            mt_buf_fmt(m, " and %" PRIu64 " more", s->blocks - s->nseqs);
        }
        mt_buf_char(m, ')');
    }
    if (s->leak_class != MT_LEAK_UNCLASSIFIED) { /* "; still reachable: held by g_x at x.c:3" */
        mt_buf_fmt(m, "; %s%s", mt_leak_class_text[s->leak_class],
                   s->held != NULL && s->held->kind != MT_HOLDER_NONE ? ": " : "");
        if (s->held != NULL)
            mt_buf_holder(m, s->held);
    }
    mt_buf_json_end(b);
    mt_buf_str(b, "}, \"locations\": [");
    if (has_location(&s->where))
        location(b, &s->where, NULL, -1, r->cwd);
    mt_buf_char(b, ']');
    stacked_t made = {&s->where, STACK_ALLOC, NULL};
    stacks(b, &made, 1, r->cwd);
    fingerprint(b, "leak", &s->where);
    mt_buf_fmt(b, ", \"properties\": {\"bytes\": %" PRIu64 ", \"blocks\": %" PRIu64, s->bytes,
               s->blocks);
    if (s->leak_class != MT_LEAK_UNCLASSIFIED) {
        mt_buf_str(b, ", \"class\": ");
        mt_buf_json_str(b, mt_leak_class_json[s->leak_class]);
    }
    if (s->held != NULL && s->held->kind != MT_HOLDER_NONE) {
        mt_buf_str(b, ", \"heldBy\": ");
        mt_buf_json_begin(b);
        mt_buf_holder(b, s->held);
        mt_buf_json_end(b);
    }
    mt_buf_str(b, "}}");
}

static void error_result(mt_buf_t *b, const mt_report_error_t *e, bool *first, rules_t *rs,
                         const char *cwd)
{
    result_head(b, first, rs, RULE_ERROR, e->kind, NULL);
    mt_buf_str(b, "\"message\": {\"text\": ");
    mt_buf_json_begin(b);
    mt_buf_error_summary(b, e);
    mt_buf_json_end(b);
    mt_buf_str(b, "}, \"locations\": [");
    /* Where it was found, when that is a line of the program; else the allocation. */
    bool found_first = e->found.file != NULL;
    const mt_place_t *primary = found_first ? &e->found : &e->alloc;
    if (has_location(primary))
        location(b, primary, NULL, -1, cwd);
    mt_buf_str(b, "], \"relatedLocations\": [");
    int id = 1;
    if (found_first && has_location(&e->alloc)) {
        location(b, &e->alloc, "the block was allocated here", id++, cwd);
    }
    if (e->freed.kind != NULL && has_location(&e->freed)) {
        mt_buf_str(b, id > 1 ? ", " : "");
        location(b, &e->freed, "the block was released here", id++, cwd);
    }
    if (!found_first && has_location(&e->found)) {
        mt_buf_str(b, id > 1 ? ", " : "");
        location(b, &e->found, "the error was found here", id++, cwd);
    }
    mt_buf_char(b, ']');
    /* The stacks of the allocation, the release and the call that found the error. */
    stacked_t places[3] = {{&e->alloc, STACK_ALLOC, NULL}, {&e->found, STACK_FOUND, NULL}};
    size_t n = 2;
    if (e->freed.kind != NULL) {
        places[1] = (stacked_t){&e->freed, STACK_RELEASE, NULL};
        places[n++] = (stacked_t){&e->found, STACK_FOUND, NULL};
    }
    stacks(b, places, n, cwd);
    fingerprint(b, e->kind, &e->alloc);
    mt_buf_fmt(b, ", \"properties\": {\"sequence\": %" PRIu64 ", \"size\": %" PRIu64 "}}", e->seq,
               e->size);
}

/* Allocations made to fail on purpose at one place: a note, at the call that got NULL. */
static void injected_result(mt_buf_t *b, const mt_injected_site_t *g, bool *first, rules_t *rs,
                            const char *cwd)
{
    result_head(b, first, rs, RULE_INJECTED, g->where.kind, NULL);
    mt_buf_str(b, "\"message\": {\"text\": ");
    mt_buf_json_begin(b);
    mt_buf_count(b, g->failures, "allocation", "allocations");
    mt_buf_fmt(b, " by %s at ", g->where.kind != NULL ? g->where.kind : "?");
    mt_buf_place(b, &g->where);
    mt_buf_str(b, " failed on purpose (allocation");
    mt_buf_str(b, g->nnths > 1 ? "s" : "");
    for (unsigned i = 0; i < g->nnths; i++) {
        mt_buf_str(b, i == 0 ? " " : ", ");
        mt_buf_u64(b, g->nths[i]);
    }
    mt_buf_str(b, "): its error path ran");
    mt_buf_json_end(b);
    mt_buf_str(b, "}, \"locations\": [");
    if (has_location(&g->where))
        location(b, &g->where, NULL, -1, cwd);
    mt_buf_char(b, ']');
    stacked_t failed = {&g->where, STACK_FAILED, NULL};
    stacks(b, &failed, 1, cwd);
    fingerprint(b, "injected", &g->where);
    mt_buf_fmt(b, ", \"properties\": {\"failures\": %" PRIu64 ", \"first\": %" PRIu64 "}}",
               g->failures, g->nnths > 0 ? g->nths[0] : 0);
}

void mt_render_sarif_location(mt_buf_t *b, const mt_place_t *p, const char *message, int id,
                              const char *cwd)
{
    location(b, p, message, id, cwd);
}

void mt_render_sarif_stacks(mt_buf_t *b, const mt_place_t *const *places,
                            const char *const *messages, size_t n, const char *cwd)
{
    stacked_t list[8];
    size_t k = 0;
    for (; k < n && k < sizeof list / sizeof list[0]; k++)
        list[k] = (stacked_t){places[k], STACK_TEXT, messages[k]};
    stacks(b, list, k, cwd);
}

static void rule_descriptions(mt_buf_t *b, const rules_t *rs)
{
    for (size_t i = 0; i < rs->count; i++) {
        const rule_t *r = &rs->list[i];
        mt_buf_str(b, i == 0 ? "\n          {" : ",\n          {");
        mt_buf_str(b, "\"id\": \"");
        buf_rule_id(b, r);
        mt_buf_str(b, "\", \"shortDescription\": {\"text\": ");
        mt_buf_json_begin(b);
        if (r->family == RULE_ERROR) {
            mt_buf_str(b, "Heap error: ");
            mt_buf_str(b, r->kind);
        } else if (r->family == RULE_INJECTED) {
            mt_buf_fmt(b, "Allocation by %s made to fail on purpose (options fail_*)",
                       r->kind != NULL ? r->kind : "an unknown call");
        } else {
            mt_buf_fmt(b, "Memory allocated by %s and never released",
                       r->kind != NULL ? r->kind : "an unknown call");
        }
        mt_buf_json_end(b);
        mt_buf_fmt(b, "}, \"defaultConfiguration\": {\"level\": \"%s\"}}",
                   family_levels[r->family]);
    }
}

void mt_render_sarif(const mt_report_t *r, mt_buf_t *b)
{
    rules_t rs;
    bool first = true;
    rs.count = 0;

    /* The rules, in the order the results use them. */
    for (size_t i = 0; i < r->nsites; i++)
        (void)rule_index(&rs, RULE_LEAK, r->sites[i].where.kind);
    for (size_t i = 0; i < r->nerror_list; i++)
        (void)rule_index(&rs, RULE_ERROR, r->error_list[i].kind);
    for (size_t i = 0; i < r->injected.nsites; i++)
        (void)rule_index(&rs, RULE_INJECTED, r->injected.sites[i].where.kind);

    mt_buf_fmt(b, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  "
                  "\"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": {\"driver\": "
                  "{\"name\": \"memtrack\", \"version\": ");
    mt_buf_json_str(b, r->version);
    mt_buf_str(b, ", \"rules\": [");
    rule_descriptions(b, &rs);
    mt_buf_str(b, rs.count > 0 ? "\n      ]}},\n" : "]}},\n");
    if (r->cwd != NULL) {
        mt_buf_str(b, "      \"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": \"file://");
        mt_buf_uri_path(b, r->cwd);
        mt_buf_str(b,
                   r->cwd[0] != '\0' && r->cwd[strlen(r->cwd) - 1] == '/' ? "\"}},\n" : "/\"}},\n");
    }
    mt_buf_str(b, "      \"invocations\": [{\"executionSuccessful\": true, ");
    if (r->partial != NULL) { /* the results are not every leak: say why */
        mt_buf_str(b, "\"toolExecutionNotifications\": [{\"level\": \"warning\", "
                      "\"message\": {\"text\": ");
        mt_buf_json_begin(b);
        mt_buf_fmt(b, "partial report: %s (", r->partial);
        mt_buf_count(b, r->leaked_bytes, "byte", "bytes");
        mt_buf_str(b, " leaked in ");
        mt_buf_count(b, r->leaked_blocks, "block", "blocks");
        mt_buf_str(b, ")");
        mt_buf_json_end(b);
        mt_buf_str(b, "}}], ");
    }
    mt_buf_str(b, "\"properties\": {\"program\": ");
    mt_buf_json_str(b, r->program);
    mt_buf_fmt(b, ", \"pid\": %" PRIu64 "}}],\n      \"results\": [", r->pid);
    for (size_t i = 0; i < r->nsites; i++)
        leak_result(b, r, &r->sites[i], &first, &rs);
    for (size_t i = 0; i < r->nerror_list; i++)
        error_result(b, &r->error_list[i], &first, &rs, r->cwd);
    for (size_t i = 0; i < r->injected.nsites; i++)
        injected_result(b, &r->injected.sites[i], &first, &rs, r->cwd);
    mt_buf_str(b, first ? "]\n    }\n  ]\n}\n" : "\n      ]\n    }\n  ]\n}\n");
    mt_buf_flush(b);
}
