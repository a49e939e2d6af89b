/* memtrack-report.c - renders a saved JSON report again, compares two, and lists the
 * options; the `memtrack` command calls it for `report`, `run` and `--options`.
 *
 *   memtrack-report FILE.json [--text] [--json OUT] [--sarif OUT] [--html OUT]
 *                   [--modules DIR]... [--sysroot DIR]
 *   memtrack-report --diff OLD.json NEW.json
 *   memtrack-report --found MAIN_PID FILE.json...
 *   memtrack-report --links-memtrack PROGRAM
 *   memtrack-report --fail-sweep ... -- PROG ARGS...   (sweep.h)
 *   memtrack-report --options
 *   memtrack-report --options-man     (the OPTIONS list of memtrack(1), as mdoc lines)
 *
 * The report is read into the library's report model and rendered by the library's own
 * renderers (compiled in from src/), so what it writes is what the program would have
 * written; frames the program could name only by function and offset (a cross target's)
 * are named by file and line from the module files, when found (saved_frames.h). OUT may be "-" for
 * standard output. Without an output option the text report is printed, with each logged error
 * listed.
 *
 * Exit status: 0 done; 1 (--found) leaks or errors found (3: and processes other than the
 * program named, whose reports are to be kept), (--diff) a site leaks more than before or
 * more errors were found, (--links-memtrack) PROGRAM does not; 2 bad usage or an
 * unreadable report.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/options.h" /* the one options table */
#include "errors/format.h"
#include "json.h"
#include "options_man.h"
#include "out_file.h"
#include "report_read.h"
#include "run.h"
#include "saved_frames.h"
#include "site_match.h"
#include "sweep.h"

const char *prog = "memtrack report";

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(memtrack --help shows the usage)\n");
    exit(2);
}

static bool write_out(const mt_report_t *r, const char *path,
                      void (*render)(const mt_report_t *, mt_buf_t *))
{
    mt_buf_t b;
    if (!out_file_open(&b, path, prog))
        return false;
    render(r, &b);
    return out_file_close(&b, path, prog);
}

static void render_text_listing_errors(const mt_report_t *r, mt_buf_t *b)
{
    mt_render_text(r, b, MT_TEXT_LIST_ERRORS);
}

/* ---- --options ----------------------------------------------------------------------- */

static int print_options(void)
{
    printf("memtrack options, set as MEMTRACK_OPTIONS=key=value:key=value (or ',' between),\n"
           "with memtrack run --options 'key=value:...', or memtrack_set_option() in code:\n\n");
    fflush(stdout);
    mt_buf_t b;
    mt_buf_init(&b, STDOUT_FILENO);
    mt_options_write_table(&b, false);
    mt_buf_flush(&b);
    printf("\nbytes take a k, m or g suffix (4k, 1m); text options are used as written.\n");
    return 0;
}

/* ---- --diff -------------------------------------------------------------------------- */

/* A count that moved: its direction and how far, so counts up to 2^64 - 1 compare and
 * print right (a difference of two such counts does not fit in 64 signed bits). */
typedef struct delta {
    int sign; /* -1, 0, +1 */
    uint64_t size;
} delta_t;

static delta_t delta_of(uint64_t before, uint64_t after)
{
    delta_t d = {after > before   ? 1
                 : after < before ? -1
                                  : 0,
                 after >= before ? after - before : before - after};
    return d;
}

/* <0, 0, >0 as a is below, equal to or above b. */
static int delta_cmp(delta_t a, delta_t b)
{
    if (a.sign != b.sign)
        return a.sign < b.sign ? -1 : 1;
    if (a.size == b.size)
        return 0;
    return (a.size < b.size) == (a.sign > 0) ? -1 : 1;
}

typedef struct change {
    const mt_leak_site_t *old_site, *new_site;
    delta_t bytes, blocks; /* new against old */
} change_t;

static int by_growth(const void *x, const void *y)
{
    const change_t *a = x, *b = y;
    int c = delta_cmp(b->bytes, a->bytes);
    return c != 0 ? c : delta_cmp(b->blocks, a->blocks);
}

static void signed_count(mt_buf_t *b, delta_t v, const char *one, const char *many)
{
    mt_buf_char(b, v.sign > 0 ? '+' : v.sign < 0 ? '-' : ' ');
    mt_buf_count(b, v.size, one, many);
}

static void diff_line(mt_buf_t *b, const change_t *c)
{
    const mt_leak_site_t *s = c->new_site != NULL ? c->new_site : c->old_site;
    mt_buf_line(b);
    mt_buf_str(b, "  ");
    signed_count(b, c->bytes, "byte", "bytes");
    mt_buf_str(b, ", ");
    signed_count(b, c->blocks, "block", "blocks");
    mt_buf_str(b, " at ");
    mt_buf_place(b, &s->where);
    mt_buf_str(b, " by ");
    mt_buf_text(b, s->where.kind != NULL ? s->where.kind : "?");
    if (s->where.stack.nframes > 0) { /* tells apart the groups of one site */
        const mt_frame_t *f = &s->where.stack.frames[0];
        mt_place_t caller = {.file = f->file,
                             .line = f->line,
                             .func = f->func,
                             .module = f->module,
                             .pc = f->pc,
                             .offset = f->offset};
        mt_buf_str(b, s->where.inlined ? ", inlined into " : ", called from ");
        mt_buf_place(b, &caller);
    }
    mt_buf_fmt(b, " (%" PRIu64 " -> ", c->old_site != NULL ? c->old_site->bytes : 0);
    mt_buf_count(b, c->new_site != NULL ? c->new_site->bytes : 0, "byte", "bytes");
    mt_buf_str(b, c->old_site == NULL   ? ", new site)\n"
                  : c->new_site == NULL ? ", gone)\n"
                                        : ")\n");
}

/* FNV-1a over a string, NULL hashing apart from "". */
static uint64_t hash_str(uint64_t h, const char *s)
{
    h = (h ^ (s == NULL ? 0x9e : 0x37)) * UINT64_C(0x100000001b3);
    for (; s != NULL && *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

/* A hash that site_same() agrees with: equal sites hash alike (the callers are left out:
 * sites with callers and without can be the same). */
static uint64_t site_hash(const mt_place_t *p)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    h = hash_str(hash_str(hash_str(h, p->kind), p->owner), p->func);
    if (p->file != NULL)
        return hash_str(h, p->file) ^ (uint64_t)p->line * UINT64_C(0x9E3779B97F4A7C15);
    return hash_str(h, site_base_name(p->module)) ^ p->offset * UINT64_C(0x9E3779B97F4A7C15);
}

/* The old sites in an open-addressing table on their hash (index + 1; 0 is empty), so each
 * new site finds its match in constant time: a diff of reports with tens of thousands of
 * sites takes a moment, not minutes. Probing keeps the old sites' order, so a new site is
 * matched to the first old one that is the same, as a scan would. */
typedef struct site_index {
    size_t *slot;
    size_t mask;
} site_index_t;

static bool index_build(site_index_t *x, const mt_report_t *a)
{
    size_t size = 16;
    while (size < a->nsites * 2 + 1)
        size *= 2;
    x->slot = calloc(size, sizeof *x->slot);
    x->mask = size - 1;
    if (x->slot == NULL)
        return false;
    for (size_t i = 0; i < a->nsites; i++) {
        size_t k = (size_t)site_hash(&a->sites[i].where) & x->mask;
        while (x->slot[k] != 0)
            k = (k + 1) & x->mask;
        x->slot[k] = i + 1;
    }
    return true;
}

/* The first old site not matched yet that is the same as where, or SIZE_MAX. */
static size_t index_find(const site_index_t *x, const mt_report_t *a, const bool *matched,
                         const mt_place_t *where)
{
    for (size_t k = (size_t)site_hash(where) & x->mask; x->slot[k] != 0; k = (k + 1) & x->mask) {
        size_t i = x->slot[k] - 1;
        if (!matched[i] && site_same(&a->sites[i].where, where))
            return i;
    }
    return SIZE_MAX;
}

static int diff(const char *old_path, const char *new_path)
{
    report_file_t o, n;
    if (!report_load(old_path, &o, prog))
        return 2;
    if (!report_load(new_path, &n, prog)) {
        report_unload(&o);
        return 2;
    }
    const mt_report_t *a = &o.model, *z = &n.model;
    change_t *changes = calloc(a->nsites + z->nsites + 1, sizeof *changes);
    bool *matched = calloc(a->nsites + 1, sizeof *matched);
    site_index_t index;
    if (changes == NULL || matched == NULL || !index_build(&index, a)) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(2);
    }
    size_t nchanges = 0;
    for (size_t j = 0; j < z->nsites; j++) {
        const mt_leak_site_t *s = &z->sites[j];
        change_t c = {NULL, s, delta_of(0, s->bytes), delta_of(0, s->blocks)};
        size_t i = index_find(&index, a, matched, &s->where);
        if (i != SIZE_MAX) {
            matched[i] = true;
            c.old_site = &a->sites[i];
            c.bytes = delta_of(a->sites[i].bytes, s->bytes);
            c.blocks = delta_of(a->sites[i].blocks, s->blocks);
        }
        if (c.bytes.sign != 0 || c.blocks.sign != 0)
            changes[nchanges++] = c;
    }
    for (size_t i = 0; i < a->nsites; i++)
        if (!matched[i])
            changes[nchanges++] = (change_t){&a->sites[i], NULL, delta_of(a->sites[i].bytes, 0),
                                             delta_of(a->sites[i].blocks, 0)};
    qsort(changes, nchanges, sizeof *changes, by_growth);

    mt_buf_t b;
    mt_buf_init(&b, STDOUT_FILENO);
    mt_buf_line(&b);
    mt_buf_str(&b, "leaks: ");
    mt_buf_count(&b, a->leaked_bytes, "byte", "bytes");
    mt_buf_str(&b, " in ");
    mt_buf_count(&b, a->leaked_blocks, "block", "blocks");
    mt_buf_str(&b, " -> ");
    mt_buf_count(&b, z->leaked_bytes, "byte", "bytes");
    mt_buf_str(&b, " in ");
    mt_buf_count(&b, z->leaked_blocks, "block", "blocks");
    mt_buf_fmt(&b, "; errors: %" PRIu64 " -> %" PRIu64 "\n", a->errors, z->errors);
    size_t more = 0, less = 0;
    for (size_t i = 0; i < nchanges; i++) {
        if (changes[i].bytes.sign > 0 || (changes[i].bytes.sign == 0 && changes[i].blocks.sign > 0))
            more++;
        else
            less++;
    }
    if (more > 0) {
        mt_buf_line(&b);
        mt_buf_str(&b, "sites that leak more:\n");
        for (size_t i = 0; i < more; i++)
            diff_line(&b, &changes[i]);
    }
    if (less > 0) {
        mt_buf_line(&b);
        mt_buf_str(&b, "sites that leak less:\n");
        for (size_t i = more; i < nchanges; i++)
            diff_line(&b, &changes[i]);
    }
    if (nchanges == 0) {
        mt_buf_line(&b);
        mt_buf_str(&b, "every site leaks as before\n");
    }
    mt_buf_flush(&b);
    int status = more > 0 || z->errors > a->errors ? 1 : 0;
    free(changes);
    free(matched);
    free(index.slot);
    report_unload(&o);
    report_unload(&n);
    return status;
}

/* ---- main ---------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *input = NULL, *json = NULL, *sarif = NULL, *html = NULL, *sysroot = NULL;
    const char **dirs = calloc((size_t)argc, sizeof *dirs);
    size_t ndirs = 0;
    bool text = false;
    if (dirs == NULL)
        usage_error("%s", "out of memory");
    if (getenv("MEMTRACK_REPORT_PROG") != NULL)
        prog = getenv("MEMTRACK_REPORT_PROG");
    if (argc >= 2 && strcmp(argv[1], "--options") == 0)
        return print_options();
    if (argc >= 2 && strcmp(argv[1], "--options-man") == 0)
        return mt_options_write_man(stdout);
    if (argc >= 2 && strcmp(argv[1], "--run") == 0)
        return tool_run(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "--fail-sweep") == 0)
        return tool_fail_sweep(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "--found") == 0)
        return run_verdict(argc - 2, argv + 2);
    if (argc == 3 && strcmp(argv[1], "--links-memtrack") == 0)
        return run_links_memtrack(argv[2]) ? 0 : 1;
    if (argc >= 2 && strcmp(argv[1], "--diff") == 0) {
        if (argc != 4)
            usage_error("%s", "--diff takes two reports: OLD.json NEW.json");
        return diff(argv[2], argv[3]);
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **out = strcmp(a, "--json") == 0    ? &json
                           : strcmp(a, "--sarif") == 0 ? &sarif
                           : strcmp(a, "--html") == 0  ? &html
                                                       : NULL;
        if (out != NULL) {
            if (i + 1 >= argc)
                usage_error("%s needs a file name (or - for standard output)", a);
            *out = argv[++i];
        } else if (strcmp(a, "--modules") == 0 || strcmp(a, "--sysroot") == 0) {
            if (i + 1 >= argc)
                usage_error("%s needs a directory", a);
            if (a[2] == 'm')
                dirs[ndirs++] = argv[++i];
            else
                sysroot = argv[++i];
        } else if (strcmp(a, "--text") == 0) {
            text = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            usage_error("unknown option %s", a);
        } else if (input != NULL) {
            usage_error("one report at a time (%s is the second)", a);
        } else {
            input = a;
        }
    }
    if (input == NULL)
        usage_error("%s", "which report? memtrack report FILE.json [--html OUT] [--sarif OUT]");
    report_file_t l;
    if (!report_load(input, &l, prog))
        return 2;
    module_search_t where = {dirs, ndirs, sysroot, input};
    saved_frames_t *named = saved_frames_name(&l.model, &where);
    bool ok = true;
    if (text || (json == NULL && sarif == NULL && html == NULL))
        ok &= write_out(&l.model, "-", render_text_listing_errors);
    if (json != NULL)
        ok &= write_out(&l.model, json, mt_render_json);
    if (sarif != NULL)
        ok &= write_out(&l.model, sarif, mt_render_sarif);
    if (html != NULL)
        ok &= write_out(&l.model, html, mt_render_html);
    report_unload(&l);
    saved_frames_release(named);
    free(dirs);
    return ok ? 0 : 2;
}
