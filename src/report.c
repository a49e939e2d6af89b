/* report.c - the report model (what leaked, by site) and its text form, and the exit-time
 * report.
 *
 * The model is built from the live blocks in scratch memory mapped from the kernel, sorted
 * with our own heap sort and printed through fixed buffers: it never allocates through the
 * tracker and stays usable after the heap was damaged. Blocks from different call sites
 * that print the same (a header's inline function compiled into two files) are one site.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define MAX_SEQS (sizeof(((mt_leak_site_t *)0)->seqs) / sizeof(uint64_t))

typedef struct build_ctx {
    mt_leak_site_t *by_id;
    uint32_t nids;
    unsigned keep_seqs;
} build_ctx_t;

/* Keeps the smallest sequence numbers, ascending. */
static void add_seq(mt_leak_site_t *s, uint64_t seq, unsigned keep)
{
    unsigned i = s->nseqs;
    if (keep == 0)
        return;
    if (i == keep) {
        if (seq >= s->seqs[i - 1])
            return;
        i--;
    } else {
        s->nseqs++;
    }
    while (i > 0 && s->seqs[i - 1] > seq) {
        s->seqs[i] = s->seqs[i - 1];
        i--;
    }
    s->seqs[i] = seq;
}

static void merge_into(mt_leak_site_t *dst, const mt_leak_site_t *src, unsigned keep)
{
    dst->bytes += src->bytes;
    dst->blocks += src->blocks;
    for (unsigned i = 0; i < src->nseqs; i++)
        add_seq(dst, src->seqs[i], keep);
}

static void count_block(mt_block_t *b, void *ctx)
{
    build_ctx_t *c = ctx;
    uint32_t id = b->site < c->nids ? b->site : MT_SITE_NONE;
    mt_leak_site_t *s = &c->by_id[id];
    s->bytes += b->size;
    s->blocks++;
    add_seq(s, MT_META_SEQ(b->meta), c->keep_seqs);
}

/* ---- sorting without allocating ------------------------------------------------------ */

typedef int (*cmp_fn)(const mt_leak_site_t *, const mt_leak_site_t *);

static void sift_down(mt_leak_site_t *a, size_t root, size_t n, cmp_fn cmp)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && cmp(&a[child], &a[child + 1]) < 0)
            child++;
        if (cmp(&a[root], &a[child]) >= 0)
            return;
        mt_leak_site_t t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void heap_sort(mt_leak_site_t *a, size_t n, cmp_fn cmp)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n, cmp);
    for (size_t end = n; end-- > 1;) {
        mt_leak_site_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end, cmp);
    }
}

static int cmp_str(const char *a, const char *b)
{
    if (a == b)
        return 0;
    if (a == NULL)
        return -1;
    if (b == NULL)
        return 1;
    return strcmp(a, b);
}

/* Orders sites by what they print, so equal sites end up side by side. */
static int cmp_place(const mt_leak_site_t *x, const mt_leak_site_t *y)
{
    const mt_site_t *a = mt_site_get(x->site), *b = mt_site_get(y->site);
    int c = cmp_str(a->file, b->file);
    if (c == 0)
        c = (a->line > b->line) - (a->line < b->line);
    if (c == 0)
        c = cmp_str(a->func, b->func);
    if (c == 0)
        c = (a->kind > b->kind) - (a->kind < b->kind);
    if (c == 0)
        c = cmp_str(a->owner, b->owner);
    if (c == 0)
        c = (a->pc > b->pc) - (a->pc < b->pc);
    return c;
}

/* Largest first; ties by place, so the report is the same from run to run. */
static int cmp_size(const mt_leak_site_t *x, const mt_leak_site_t *y)
{
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->blocks != y->blocks)
        return x->blocks < y->blocks ? 1 : -1;
    return cmp_place(x, y);
}

/* heap_sort sorts ascending by cmp; cmp_size already puts the largest "lowest". */

bool mt_report_build(mt_report_t *r)
{
    memset(r, 0, sizeof *r);
    mt_stats_read(&r->stats);
    r->errors = mt_error_total();

    build_ctx_t c;
    c.nids = mt_site_count();
    c.keep_seqs = mt_opt.report_seqs < MAX_SEQS ? (unsigned)mt_opt.report_seqs : MAX_SEQS;
    r->map_size = ((size_t)c.nids * sizeof(mt_leak_site_t) + 4095) & ~(size_t)4095;
    c.by_id = mt_pages_alloc(r->map_size);
    if (c.by_id == NULL)
        return false;
    for (uint32_t i = 0; i < c.nids; i++)
        c.by_id[i].site = i;
    mt_table_foreach(count_block, &c);

    /* Keep the sites that hold blocks, then merge those that print the same. */
    size_t n = 0;
    for (uint32_t i = 0; i < c.nids; i++)
        if (c.by_id[i].blocks != 0)
            c.by_id[n++] = c.by_id[i];
    heap_sort(c.by_id, n, cmp_place);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && mt_site_same(c.by_id[m - 1].site, c.by_id[i].site))
            merge_into(&c.by_id[m - 1], &c.by_id[i], c.keep_seqs);
        else
            c.by_id[m++] = c.by_id[i];
    }
    heap_sort(c.by_id, m, cmp_size);

    r->sites = c.by_id;
    r->nsites = m;
    for (size_t i = 0; i < m; i++) {
        r->leaked_bytes += r->sites[i].bytes;
        r->leaked_blocks += r->sites[i].blocks;
    }
    return true;
}

void mt_report_free(mt_report_t *r)
{
    mt_pages_free(r->sites, r->map_size);
    r->sites = NULL;
    r->nsites = 0;
}

/* ---- text ---------------------------------------------------------------------------- */

static unsigned digits_of(uint64_t v)
{
    unsigned d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

static void pad_to(mt_buf_t *b, uint64_t v, unsigned width)
{
    for (unsigned d = digits_of(v); d < width; d++)
        mt_buf_char(b, ' ');
    mt_buf_u64(b, v);
}

static void print_leak_site(mt_buf_t *b, const mt_leak_site_t *s, unsigned width)
{
    const mt_site_t *site = mt_site_get(s->site);
    mt_buf_line(b);
    mt_buf_str(b, "  ");
    pad_to(b, s->bytes, width);
    mt_buf_str(b, s->bytes == 1 ? " byte in " : " bytes in ");
    mt_buf_count(b, s->blocks, "block", "blocks");
    mt_buf_str(b, " at ");
    mt_buf_site(b, s->site);
    mt_buf_str(b, " by ");
    mt_buf_str(b, mt_kind_names[site->kind]);
    if (site->owner != NULL) {
        mt_buf_str(b, " \"");
        mt_buf_str(b, site->owner);
        mt_buf_char(b, '"');
    }
    mt_buf_str(b, ": ");
    for (unsigned i = 0; i < s->nseqs; i++) {
        if (i > 0)
            mt_buf_str(b, ", ");
        mt_buf_char(b, '#');
        mt_buf_u64(b, s->seqs[i]);
    }
    if (s->blocks > s->nseqs) {
        mt_buf_str(b, s->nseqs > 0 ? " and " : "");
        mt_buf_u64(b, s->blocks - s->nseqs);
        mt_buf_str(b, " more");
    }
    mt_buf_char(b, '\n');
}

static void print_error_counts(mt_buf_t *b)
{
    bool first = true;
    mt_buf_line(b);
    mt_buf_str(b, "errors: ");
    for (unsigned k = 0; k < MT_ERROR_COUNT; k++) {
        size_t n = mt_error_count((mt_error_kind_t)k);
        if (n == 0)
            continue;
        mt_buf_str(b, first ? "" : ", ");
        mt_buf_str(b, mt_error_names[k]);
        mt_buf_char(b, ' ');
        mt_buf_u64(b, n);
        first = false;
    }
    mt_buf_char(b, '\n');
}

void mt_report_text(const mt_report_t *r, int fd, bool at_exit)
{
    mt_buf_t b;
    const memtrack_stats_t *st = &r->stats;
    bool show_leaks = mt_opt.leaks || !at_exit;
    uint64_t leaked = show_leaks ? r->leaked_blocks : 0;
    mt_buf_init(&b, fd);

    if (leaked == 0 && r->errors == 0) {
        if (at_exit && !mt_opt.verbose)
            return; /* a clean run prints nothing, as LeakSanitizer does */
        mt_buf_line(&b);
        mt_buf_str(&b, at_exit ? "no leaks, no errors (" : "no live blocks, no errors (");
        mt_buf_count(&b, st->total_blocks, "allocation", "allocations");
        mt_buf_str(&b, ", peak ");
        mt_buf_count(&b, st->peak_bytes, "byte", "bytes");
        mt_buf_str(&b, " in ");
        mt_buf_count(&b, st->peak_blocks, "block", "blocks");
        mt_buf_str(&b, ")\n");
        mt_buf_flush(&b);
        return;
    }

    mt_buf_line(&b);
    mt_buf_str(&b, at_exit ? "report for " : "live blocks of ");
    mt_buf_str(&b, mt_program_name());
    mt_buf_str(&b, " (pid ");
    mt_buf_u64(&b, (uint64_t)getpid());
    mt_buf_str(&b, ")\n");

    mt_buf_line(&b);
    if (show_leaks) {
        mt_buf_count(&b, r->leaked_bytes, "byte", "bytes");
        mt_buf_str(&b, at_exit ? " leaked in " : " live in ");
        mt_buf_count(&b, r->leaked_blocks, "block", "blocks");
        mt_buf_str(&b, " from ");
        mt_buf_count(&b, r->nsites, "site", "sites");
        mt_buf_str(&b, "; ");
    }
    mt_buf_count(&b, r->errors, "error", "errors");
    mt_buf_str(&b, " found\n");

    mt_buf_line(&b);
    mt_buf_str(&b, "peak ");
    mt_buf_count(&b, st->peak_bytes, "byte", "bytes");
    mt_buf_str(&b, " in ");
    mt_buf_count(&b, st->peak_blocks, "block", "blocks");
    mt_buf_str(&b, "; ");
    mt_buf_count(&b, st->total_blocks, "allocation", "allocations");
    mt_buf_str(&b, " (");
    mt_buf_count(&b, st->total_bytes, "byte", "bytes");
    mt_buf_str(&b, "), ");
    mt_buf_count(&b, st->frees, "free", "frees");
    mt_buf_str(&b, ", ");
    mt_buf_u64(&b, st->failed);
    mt_buf_str(&b, " failed\n");

    if (r->errors != 0)
        print_error_counts(&b);

    if (show_leaks && r->nsites > 0) {
        size_t shown = r->nsites < mt_opt.report_sites ? r->nsites : mt_opt.report_sites;
        unsigned width = digits_of(r->sites[0].bytes);
        mt_buf_line(&b);
        mt_buf_str(&b, at_exit ? "leaks by site, largest first:\n"
                               : "live blocks by site, largest first:\n");
        for (size_t i = 0; i < shown; i++)
            print_leak_site(&b, &r->sites[i], width);
        if (shown < r->nsites) {
            uint64_t bytes = 0, blocks = 0;
            for (size_t i = shown; i < r->nsites; i++) {
                bytes += r->sites[i].bytes;
                blocks += r->sites[i].blocks;
            }
            mt_buf_line(&b);
            mt_buf_str(&b, "  ... and ");
            mt_buf_count(&b, r->nsites - shown, "more site", "more sites");
            mt_buf_str(&b, ": ");
            mt_buf_count(&b, bytes, "byte", "bytes");
            mt_buf_str(&b, " in ");
            mt_buf_count(&b, blocks, "block", "blocks");
            mt_buf_str(&b, " (option report_sites)\n");
        }
    }
    mt_buf_flush(&b);
}

/* ---- reports on demand and at exit --------------------------------------------------- */

MT_EXPORT void memtrack_report(void)
{
    mt_report_t r;
    mt_init();
    mt_busy++;
    if (mt_report_build(&r)) {
        int fd = mt_out_fd();
        mt_out_lock();
        mt_report_text(&r, fd, false);
        mt_out_unlock();
        mt_report_free(&r);
    }
    mt_busy--;
}

static atomic_flag exit_reported = ATOMIC_FLAG_INIT;

/* Called from libmemtrack's destructor, after the program's atexit handlers and static
 * destructors: what they free is not a leak. Exactly once, whatever way the process ends
 * (exit, return from main, the last thread's pthread_exit); _exit and exec skip it. */
void mt_report_at_exit(void)
{
    mt_report_t r;
    if (atomic_flag_test_and_set(&exit_reported))
        return;
    mt_init();
    atomic_store(&mt_state, 2);
    /* The program's last buffered output comes before the report, as it was written. */
    fflush(stdout);
    mt_busy++;
    (void)mt_check_all(mt_site_id(NULL, 0, NULL, MT_KIND_EXIT, NULL));
    bool built = mt_report_build(&r);
    if (built) {
        int fd = mt_out_fd();
        mt_out_lock();
        mt_report_text(&r, fd, true);
        mt_out_unlock();
    }
    bool found = r.errors != 0 || (mt_opt.leaks && built && r.leaked_blocks != 0);
    if (built)
        mt_report_free(&r);
    mt_busy--;
    if (found && mt_opt.exitcode >= 0) {
        /* _exit skips the C library's last flush: flush the program's output first. */
        fflush(NULL);
        _exit((int)(mt_opt.exitcode & 0xff));
    }
}
