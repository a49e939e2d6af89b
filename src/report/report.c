/* report.c - builds the report model (model.h) and writes the reports: at exit, on
 * demand (memtrack_report) and since a checkpoint (memtrack_report_since).
 *
 * The model is built from the live blocks, the error log, the timeline and the options in
 * scratch memory mapped from the kernel, sorted with our own heap sort: it never allocates
 * through the tracker and stays usable after the heap was damaged. Blocks from different
 * call sites that print the same (a header's inline function compiled into two files) are
 * one site. Sites inside system libraries (track_all) and sites a suppression rule matches
 * are counted apart. The renderers (render_*.c) turn the model into text, JSON, SARIF and
 * HTML; at exit the text goes to the report stream and the others to the files the options
 * json=, sarif= and html= name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "api/owned.h"
#include "base/output.h"
#include "checks/unwritten.h"
#include "records/place.h"
#include "records/stats.h"
#include "records/timeline.h"
#include "report/report.h"

#define MAX_SEQS (sizeof(((mt_leak_site_t *)0)->seqs) / sizeof(uint64_t))

typedef struct build_ctx {
    mt_leak_site_t *by_id;
    uint32_t nids;
    unsigned keep_seqs;
    uint64_t since; /* count blocks with this sequence number or later */
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
    if (MT_META_SEQ(b->meta) < c->since)
        return;
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

/* ---- building the model --------------------------------------------------------- */

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

void mt_report_prepare(void)
{
    pthread_mutex_lock(&report_lock);
    (void)mt_suppress_count(); /* read now: at exit, descriptors or memory may be gone */
    pthread_mutex_unlock(&report_lock);
}

void mt_report_lock(void)
{
    pthread_mutex_lock(&report_lock);
}

void mt_report_unlock(void)
{
    pthread_mutex_unlock(&report_lock);
}

/* A bump allocator over the one mapping behind a model. */
typedef struct scratch {
    char *base;
    size_t size, used;
} scratch_t;

static void *take(scratch_t *s, size_t bytes)
{
    size_t at = (s->used + 15) & ~(size_t)15;
    if (at > s->size || bytes > s->size - at)
        return NULL;
    s->used = at + bytes;
    return s->base + at;
}

static const char *take_string(scratch_t *s, const char *text, size_t n)
{
    char *copy = take(s, n + 1);
    if (copy == NULL)
        return "";
    memcpy(copy, text, n);
    copy[n] = '\0';
    return copy;
}

static void add_apart(mt_apart_t *a, const mt_leak_site_t *s)
{
    a->bytes += s->bytes;
    a->blocks += s->blocks;
    a->sites++;
}

/* Resolves each site's place, and moves system and suppressed sites out of the list. */
static size_t sort_out_sites(mt_report_t *r, mt_leak_site_t *sites, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        mt_leak_site_t *s = &sites[i];
        bool system = mt_place_of(s->site, &s->where);
        if (system && !mt_opt.system_leaks) {
            add_apart(&r->system, s);
            continue;
        }
        long rule = mt_suppress_match(&s->where);
        if (rule >= 0) {
            add_apart(&r->suppressed, s);
            add_apart(&r->rules[rule].hits, s);
            continue;
        }
        sites[kept++] = *s;
    }
    return kept;
}

static void build_leaks(mt_report_t *r, mt_leak_site_t *by_id, uint32_t nids, uint64_t since)
{
    build_ctx_t c = {by_id, nids, 0, since};
    c.keep_seqs = mt_opt.report_seqs < MAX_SEQS ? (unsigned)mt_opt.report_seqs : MAX_SEQS;
    for (uint32_t i = 0; i < nids; i++)
        by_id[i].site = i;
    mt_table_foreach(count_block, &c);

    /* Keep the sites that hold blocks, then merge those that print the same. */
    size_t n = 0;
    for (uint32_t i = 0; i < nids; i++)
        if (by_id[i].blocks != 0)
            by_id[n++] = by_id[i];
    heap_sort(by_id, n, cmp_place);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && mt_site_same(by_id[m - 1].site, by_id[i].site))
            merge_into(&by_id[m - 1], &by_id[i], c.keep_seqs);
        else
            by_id[m++] = by_id[i];
    }
    m = sort_out_sites(r, by_id, m);
    heap_sort(by_id, m, cmp_size);

    r->sites = by_id;
    r->nsites = m;
    for (size_t i = 0; i < m; i++) {
        r->leaked_bytes += by_id[i].bytes;
        r->leaked_blocks += by_id[i].blocks;
    }
}

static void build_errors(mt_report_t *r, mt_error_t *raw)
{
    size_t n = mt_error_log(raw, MT_ERROR_LOG_MAX);
    for (size_t i = 0; i < n; i++)
        mt_error_to_model(&raw[i], &r->error_list[i]);
    r->nerror_list = n;
    for (unsigned k = 0; k < MT_ERROR_COUNT; k++) {
        size_t count = mt_error_count((mt_error_kind_t)k);
        if (count != 0) {
            r->error_kinds[r->nerror_kinds].name = mt_error_names[k];
            r->error_kinds[r->nerror_kinds].count = count;
            r->nerror_kinds++;
        }
    }
}

/* Messages the cap kept quiet, and bytes never written by site. */
#define NOT_PRINTED_MAX 64u
#define UNWRITTEN_MAX 64u

static void build_not_printed(mt_report_t *r, mt_capped_t *raw)
{
    size_t n = mt_error_not_printed(raw, NOT_PRINTED_MAX);
    for (size_t i = 0; i < n; i++) {
        mt_not_printed_t *out = &r->not_printed[i];
        out->kind = mt_error_names[raw[i].kind];
        (void)mt_place_of(raw[i].site, &out->found);
        out->count = raw[i].count;
    }
    r->nnot_printed = n;
    r->max_messages = mt_opt.max_messages;
}

static void build_unwritten(mt_report_t *r, mt_unwritten_site_t *raw)
{
    r->unwritten_check = mt_opt.unwritten != 0;
    if (!r->unwritten_check)
        return;
    size_t max = r->list_sites < UNWRITTEN_MAX ? r->list_sites : UNWRITTEN_MAX;
    size_t n = mt_unwritten_collect(raw, max);
    for (size_t i = 0; i < n; i++) {
        mt_unwritten_t *out = &r->unwritten[i];
        (void)mt_place_of(raw[i].site, &out->where);
        out->blocks = raw[i].blocks;
        out->bytes = raw[i].bytes;
        out->unwritten = raw[i].unwritten;
    }
    r->nunwritten = n;
}

static void build_options(mt_report_t *r, scratch_t *s)
{
    static const char types[] = {[MT_OPT_BOOL] = 'b',
                                 [MT_OPT_INT] = 'n',
                                 [MT_OPT_SIZE] = 'n',
                                 [MT_OPT_COUNT] = 'n',
                                 [MT_OPT_STRING] = 's'};
    size_t n = mt_option_count();
    for (size_t i = 0; i < n; i++) {
        mt_buf_t b;
        mt_buf_init(&b, -1);
        mt_buf_option_value(&b, i);
        mt_option_value_t *o = &r->options[i];
        o->name = mt_option_name(i);
        o->type = types[mt_option_type(i)];
        o->value = take_string(s, b.data, b.len < sizeof b.data ? b.len : sizeof b.data);
    }
    r->noptions = n;
}

bool mt_report_build(mt_report_t *r, mt_when_t when, uint64_t since)
{
    memset(r, 0, sizeof *r);
    r->version = MEMTRACK_VERSION;
    r->program = mt_program_name();
    r->pid = (uint64_t)getpid();
    r->when = when;
    r->since = since;
    mt_stats_read(&r->stats);
    r->stats.errors = mt_error_total();
    r->errors = mt_error_total();
    r->leak_check = mt_opt.leaks || when != MT_WHEN_EXIT;
    r->list_sites = mt_opt.report_sites;

    uint32_t nids = mt_site_count();
    size_t nrules = mt_suppress_count();
    size_t nopts = mt_option_count();
    scratch_t s = {NULL, 0, 0};
    s.size = (size_t)nids * sizeof(mt_leak_site_t) +
             MT_ERROR_LOG_MAX * (sizeof(mt_error_t) + sizeof(mt_report_error_t)) +
             MT_ERROR_COUNT * sizeof(mt_name_count_t) +
             (MT_TIMELINE_MAX + 1) * sizeof(mt_sample_t) + nrules * sizeof(mt_rule_hits_t) +
             nopts * (sizeof(mt_option_value_t) + MT_OPTION_STRING_MAX + 16) + PATH_MAX +
             NOT_PRINTED_MAX * (sizeof(mt_capped_t) + sizeof(mt_not_printed_t)) +
             UNWRITTEN_MAX * (sizeof(mt_unwritten_site_t) + sizeof(mt_unwritten_t)) + 20 * 16;
    s.size = (s.size + 4095) & ~(size_t)4095;
    s.base = mt_pages_alloc(s.size);
    if (s.base == NULL)
        return false;
    r->scratch = s.base;
    r->scratch_size = s.size;

    mt_leak_site_t *by_id = take(&s, (size_t)nids * sizeof(mt_leak_site_t));
    mt_error_t *raw = take(&s, MT_ERROR_LOG_MAX * sizeof(mt_error_t));
    r->error_list = take(&s, MT_ERROR_LOG_MAX * sizeof(mt_report_error_t));
    r->error_kinds = take(&s, MT_ERROR_COUNT * sizeof(mt_name_count_t));
    r->samples = take(&s, (MT_TIMELINE_MAX + 1) * sizeof(mt_sample_t));
    r->rules = take(&s, nrules * sizeof(mt_rule_hits_t) + 1);
    r->options = take(&s, nopts * sizeof(mt_option_value_t) + 1);
    mt_capped_t *capped = take(&s, NOT_PRINTED_MAX * sizeof(mt_capped_t));
    r->not_printed = take(&s, NOT_PRINTED_MAX * sizeof(mt_not_printed_t));
    mt_unwritten_site_t *unwritten = take(&s, UNWRITTEN_MAX * sizeof(mt_unwritten_site_t));
    r->unwritten = take(&s, UNWRITTEN_MAX * sizeof(mt_unwritten_t));
    char *cwd = take(&s, PATH_MAX);
    r->cwd = cwd != NULL && getcwd(cwd, PATH_MAX) != NULL ? cwd : NULL;

    for (size_t i = 0; i < nrules; i++)
        r->rules[i].rule = mt_suppress_rule(i);
    r->nrules = nrules;
    if (r->leak_check)
        build_leaks(r, by_id, nids, since);
    if (r->leak_check && when != MT_WHEN_SINCE) {
        /* Threads still running may have made blocks between the counters' reading and the
         * walk of the table: the report never says fewer blocks live, or a lower peak, than
         * the walk found. (A single thread's counters already agree with its walk.) */
        uint64_t live_bytes = r->leaked_bytes + r->suppressed.bytes + r->system.bytes;
        uint64_t live_blocks = r->leaked_blocks + r->suppressed.blocks + r->system.blocks;
        if (r->stats.current_bytes < live_bytes)
            r->stats.current_bytes = (size_t)live_bytes;
        if (r->stats.current_blocks < live_blocks)
            r->stats.current_blocks = (size_t)live_blocks;
        if (r->stats.peak_bytes < r->stats.current_bytes)
            r->stats.peak_bytes = r->stats.current_bytes;
        if (r->stats.peak_blocks < r->stats.current_blocks)
            r->stats.peak_blocks = r->stats.current_blocks;
    }
    r->threads_running = mt_stats_other_threads();
    build_errors(r, raw);
    build_not_printed(r, capped);
    build_unwritten(r, unwritten);
    r->nsamples = mt_timeline_copy(r->samples, MT_TIMELINE_MAX + 1, &r->peak);
    build_options(r, &s);
    return true;
}

void mt_report_free(mt_report_t *r)
{
    mt_pages_free(r->scratch, r->scratch_size);
    r->scratch = NULL;
    r->sites = NULL;
    r->nsites = 0;
}

/* ---- writing reports ----------------------------------------------------------------- */

/* The process that loaded the library: a forked child writes report files only to a
 * path with "%p", so it never overwrites its parent's. */
static pid_t first_pid;

__attribute__((constructor(102))) static void remember_pid(void)
{
    first_pid = getpid();
}

static void warn_file(const char *what, const char *path, int err)
{
    mt_buf_t b;
    mt_warning_begin(&b);
    mt_buf_str(&b, "cannot write the ");
    mt_buf_str(&b, what);
    mt_buf_str(&b, " report to '");
    mt_buf_str(&b, path);
    mt_buf_str(&b, "': ");
    mt_buf_str(&b, err == ELOOP ? "it is a symbolic link, which memtrack does not follow"
                                : strerror(err));
    mt_warning_end(&b);
}

/* Renders r into the file the option names, if any. */
/* Renders r into fd; returns 0 or the errno of the first write or of the close that failed. */
static int render_to(int fd, const mt_report_t *r, void (*render)(const mt_report_t *, mt_buf_t *))
{
    mt_buf_t b;
    mt_buf_init(&b, fd);
    render(r, &b);
    mt_buf_flush(&b);
    int err = b.error;
    if (close(fd) != 0 && err == 0 && errno != EINTR)
        err = errno;
    return err;
}

/* Writes a whole report to path, never through a symbolic link: a regular file (or none yet)
 * is replaced by renaming a new file written beside it, so a reader never sees half a report
 * and a link planted at the path is replaced, not followed; a device or a FIFO that is already
 * there (/dev/stdout, a pipe) is written directly, without waiting for a reader. Returns 0 or
 * an errno value (ELOOP for a symbolic link). */
static int write_whole_file(const char *path, const mt_report_t *r,
                            void (*render)(const mt_report_t *, mt_buf_t *))
{
    struct stat st;
    bool exists = lstat(path, &st) == 0;
    if (exists && S_ISLNK(st.st_mode))
        return ELOOP;
    if (exists && !S_ISREG(st.st_mode)) {
        int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        return fd < 0 ? errno : render_to(fd, r, render);
    }
    char tmp[MT_OPTION_STRING_MAX + 64];
    mt_buf_t name;
    mt_buf_init(&name, -1);
    mt_buf_str(&name, path);
    mt_buf_str(&name, ".tmp.");
    mt_buf_u64(&name, (uint64_t)getpid());
    if (name.len >= sizeof tmp)
        return ENAMETOOLONG;
    memcpy(tmp, name.data, name.len);
    tmp[name.len] = '\0';
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    int err = render_to(fd, r, render);
    if (err == 0 && rename(tmp, path) != 0)
        err = errno;
    if (err != 0)
        (void)unlink(tmp);
    return err;
}

static void write_file(const mt_report_t *r, const char *path, const char *what,
                       void (*render)(const mt_report_t *, mt_buf_t *))
{
    char full[MT_OPTION_STRING_MAX + 32];
    if (path == NULL || path[0] == '\0')
        return;
    if (strstr(path, "%p") == NULL && first_pid != 0 && getpid() != first_pid)
        return;
    if (!mt_expand_path(path, full, sizeof full)) {
        warn_file(what, path, ENAMETOOLONG);
        return;
    }
    int err = write_whole_file(full, r, render);
    if (err != 0)
        warn_file(what, full, err);
}

static void print_text(const mt_report_t *r, unsigned flags)
{
    int fd = mt_out_fd();
    mt_buf_t b;
    mt_buf_init(&b, fd);
    mt_out_lock();
    mt_render_text(r, &b, flags);
    mt_buf_flush(&b);
    mt_out_unlock();
}

MT_EXPORT void memtrack_report(void)
{
    mt_report_t r;
    int saved = errno; /* the program's errno is as it was */
    mt_init();
    mt_busy++;
    pthread_mutex_lock(&report_lock);
    if (mt_report_build(&r, MT_WHEN_NOW, 1)) {
        print_text(&r, 0);
        mt_report_free(&r);
    }
    pthread_mutex_unlock(&report_lock);
    mt_busy--;
    errno = saved;
}

/* The live blocks as the crash handler prints them (api/crash.c). Nothing waits: a
 * report being built by another thread, or one the crashed thread held, means none. */
bool mt_report_crash_text(int fd)
{
    mt_report_t r;
    if (pthread_mutex_trylock(&report_lock) != 0)
        return false;
    bool built = mt_report_build(&r, MT_WHEN_NOW, 1);
    if (built) {
        mt_buf_t b;
        mt_buf_init(&b, fd);
        mt_render_text(&r, &b, 0);
        mt_buf_flush(&b);
        mt_report_free(&r);
    }
    pthread_mutex_unlock(&report_lock);
    return built;
}

MT_EXPORT unsigned long memtrack_checkpoint(void)
{
    mt_init();
    return (unsigned long)mt_seq_upcoming();
}

MT_EXPORT size_t memtrack_report_since(unsigned long mark)
{
    mt_report_t r;
    size_t blocks = 0;
    int saved = errno;
    mt_init();
    mt_busy++;
    pthread_mutex_lock(&report_lock);
    if (mt_report_build(&r, MT_WHEN_SINCE, mark == 0 ? 1 : (uint64_t)mark)) {
        blocks = (size_t)r.leaked_blocks;
        print_text(&r, mt_opt.verbose ? 0 : MT_TEXT_SILENT_WHEN_CLEAN);
        mt_report_free(&r);
    }
    pthread_mutex_unlock(&report_lock);
    mt_busy--;
    errno = saved;
    return blocks;
}

static atomic_flag exit_reported = ATOMIC_FLAG_INIT;

/* Called from libmemtrack's destructor, after the program's atexit handlers and static
 * destructors: what they free is not a leak. Exactly once, whatever way the process ends
 * (exit, return from main, the last thread's pthread_exit); _exit and exec skip it. */
/* The exit report when there is no memory left to build it (the program used it all up):
 * the totals, which need none, rather than nothing. Returns whether leaks or errors were
 * found, so exitcode still applies. */
#define STREAMED_MAX 30u

/* The oldest leaked blocks (the smallest sequence numbers), one by one: no memory to group
 * them by site. */
typedef struct streamed {
    size_t n;
    struct {
        size_t size;
        uint64_t seq;
        uint32_t site;
    } block[STREAMED_MAX];
} streamed_t;

static void note_block(mt_block_t *b, void *ctx)
{
    streamed_t *s = ctx;
    uint64_t seq = MT_META_SEQ(b->meta);
    if (b->meta & MT_META_FLAG_OWNED)
        return;
    size_t at = s->n;
    if (s->n == STREAMED_MAX) { /* full: take the place of the newest, if this is older */
        at = 0;
        for (size_t i = 1; i < s->n; i++)
            if (s->block[i].seq > s->block[at].seq)
                at = i;
        if (s->block[at].seq < seq)
            return;
    } else {
        s->n++;
    }
    s->block[at].size = b->size;
    s->block[at].seq = seq;
    s->block[at].site = b->site;
}

static bool print_without_memory(void)
{
    memtrack_stats_t st;
    mt_stats_read(&st);
    size_t errors = mt_error_total();
    bool leaks = mt_opt.leaks && st.current_blocks != 0;
    if (!leaks && errors == 0 && !mt_opt.verbose)
        return false;
    streamed_t first = {0};
    if (leaks)
        mt_table_foreach(note_block, &first); /* before the output's lock: the lock order */
    mt_buf_t b;
    mt_buf_init(&b, mt_out_fd());
    mt_out_lock();
    mt_buf_line(&b);
    mt_buf_str(&b, "report for ");
    mt_buf_text(&b, mt_program_name());
    mt_buf_str(&b, " (pid ");
    mt_buf_u64(&b, (uint64_t)getpid());
    mt_buf_str(&b, "): out of memory, so not grouped by site\n");
    mt_buf_line(&b);
    mt_buf_count(&b, mt_opt.leaks ? st.current_bytes : 0, "byte", "bytes");
    mt_buf_str(&b, " leaked in ");
    mt_buf_count(&b, mt_opt.leaks ? st.current_blocks : 0, "block", "blocks");
    mt_buf_str(&b, "; ");
    mt_buf_count(&b, errors, "error", "errors");
    mt_buf_str(&b, " found\n");
    mt_buf_line(&b);
    mt_buf_str(&b, "peak ");
    mt_buf_u64(&b, st.peak_bytes);
    mt_buf_str(&b, " bytes in ");
    mt_buf_count(&b, st.peak_blocks, "block", "blocks");
    mt_buf_str(&b, "; ");
    mt_buf_u64(&b, st.total_blocks);
    mt_buf_str(&b, " allocations, ");
    mt_buf_u64(&b, st.frees);
    mt_buf_str(&b, " frees, ");
    mt_buf_u64(&b, st.failed);
    mt_buf_str(&b, " failed\n");
    for (size_t i = 1; i < first.n; i++) /* oldest first: at most 30, so insertion sort */
        for (size_t j = i; j > 0 && first.block[j - 1].seq > first.block[j].seq; j--) {
            __typeof__(first.block[0]) t = first.block[j];
            first.block[j] = first.block[j - 1];
            first.block[j - 1] = t;
        }
    if (first.n != 0) {
        mt_buf_line(&b);
        mt_buf_str(&b, "leaked blocks, one a line, the first ");
        mt_buf_u64(&b, first.n);
        mt_buf_str(&b, ":\n");
    }
    for (size_t i = 0; i < first.n; i++) {
        mt_buf_line(&b);
        mt_buf_str(&b, "  ");
        mt_buf_count(&b, first.block[i].size, "byte", "bytes");
        mt_buf_str(&b, " at ");
        mt_buf_site(&b, first.block[i].site);
        mt_buf_str(&b, " by ");
        mt_buf_str(&b, mt_kind_names[mt_site_get(first.block[i].site)->kind]);
        mt_buf_str(&b, ": #");
        mt_buf_u64(&b, first.block[i].seq);
        mt_buf_char(&b, '\n');
    }
    mt_buf_flush(&b);
    mt_out_unlock();
    /* The files get the same totals, in a report with no sites (its arrays are empty). */
    mt_report_t r;
    memset(&r, 0, sizeof r);
    r.version = MEMTRACK_VERSION;
    r.program = mt_program_name();
    r.pid = (uint64_t)getpid();
    r.when = MT_WHEN_EXIT;
    r.stats = st;
    r.stats.errors = errors;
    r.leak_check = mt_opt.leaks;
    r.leaked_bytes = mt_opt.leaks ? st.current_bytes : 0;
    r.leaked_blocks = mt_opt.leaks ? st.current_blocks : 0;
    r.errors = errors;
    r.max_messages = mt_opt.max_messages;
    write_file(&r, mt_opt.json, "JSON", mt_render_json);
    write_file(&r, mt_opt.sarif, "SARIF", mt_render_sarif);
    write_file(&r, mt_opt.html, "HTML", mt_render_html);
    return leaks || errors != 0;
}

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
    uint32_t exit_site = mt_site_id(NULL, 0, NULL, MT_KIND_EXIT, NULL);
    (void)mt_owners_check(exit_site); /* released pool slots and arena bytes */
    (void)mt_check_all(exit_site);
    pthread_mutex_lock(&report_lock);
    bool built = mt_report_build(&r, MT_WHEN_EXIT, 1);
    bool found = mt_error_total() != 0;
    if (built) {
        print_text(&r, mt_opt.verbose ? 0 : MT_TEXT_SILENT_WHEN_CLEAN);
        write_file(&r, mt_opt.json, "JSON", mt_render_json);
        write_file(&r, mt_opt.sarif, "SARIF", mt_render_sarif);
        write_file(&r, mt_opt.html, "HTML", mt_render_html);
        found = mt_report_found(&r);
        mt_report_free(&r);
    } else {
        found = print_without_memory();
    }
    pthread_mutex_unlock(&report_lock);
    mt_busy--;
    if (found && mt_opt.exitcode >= 0) {
        /* _exit skips the C library's last flush: flush the program's output first. */
        fflush(NULL);
        _exit((int)(mt_opt.exitcode & 0xff));
    }
}
