/* report.c - builds the report model (model.h); write.c writes the reports.
 *
 * The model is built from the live blocks, the error log, the timeline and the options in
 * scratch memory mapped from the kernel, sorted with our own heap sort: it never allocates
 * through the tracker and stays usable after the heap was damaged. Blocks from different
 * call sites that print the same (a header's inline function compiled into two files) are
 * one site. Sites inside system libraries (track_all) and sites a suppression rule matches
 * are counted apart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lock.h"
#include "api/api.h"
#include "api/owned.h"
#include "base/symbolize.h"
#include "base/code_map.h"
#include "base/stack_regions.h"
#include "base/unwind.h"
#include "checks/unwritten.h"
#include "records/place.h"
#include "records/site.h"
#include "records/stack.h"
#include "records/stats.h"
#include "records/timeline.h"
#include "report/injected.h"
#include "report/leaks.h"
#include "report/report.h"
#include "report/wrappers.h"

/* A JSON report read back keeps as many frames as a stack can have, and one address names
 * no more functions it was inlined into than a stack has room for. */
_Static_assert(MT_REPORT_MAX_FRAMES == MT_REPORT_STACK_ROOM(MT_STACK_MAX),
               "report frames and stack depth differ");
_Static_assert(MT_INLINE_MAX <= MT_REPORT_INLINE_FRAMES &&
                   MT_STACK_ROOM(MT_STACK_MAX) <= MT_REPORT_MAX_FRAMES,
               "inline frames exceed their room");

/* ---- building the model --------------------------------------------------------- */

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

void mt_report_prepare(void)
{
    mt_mutex_lock(&report_lock);
    (void)mt_suppress_count(); /* read now: at exit, descriptors or memory may be gone */
    mt_mutex_unlock(&report_lock);
}

void mt_report_lock(void)
{
    mt_mutex_lock(&report_lock);
}

void mt_report_unlock(void)
{
    mt_mutex_unlock(&report_lock);
}

bool mt_report_trylock(void)
{
    return mt_mutex_trylock(&report_lock) == 0;
}

static void build_errors(mt_report_t *r, mt_error_t *raw, size_t max, frame_pool_t *pool)
{
    size_t n = mt_error_log(raw, max);
    for (size_t i = 0; i < n; i++) {
        size_t room = (size_t)(pool->end - pool->next);
        size_t want = 3 * MT_STACK_ROOM(pool->depth);
        pool->next += mt_error_to_model(&raw[i], &r->error_list[i], pool->next,
                                        room < want ? room : want, NULL, NULL);
    }
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

/* Messages the cap kept quiet, and bytes never written by site (8 on bare metal). */
#define NOT_PRINTED_MAX MT_SMALL(64u, 8u)
#define UNWRITTEN_MAX MT_SMALL(64u, 8u)

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

/* Room for the options' values: the most any can take, or on bare metal what they take
 * now (the one thread cannot change them while it builds the report). */
static size_t options_room(size_t nopts)
{
#ifdef MT_BARE_METAL
    size_t room = nopts * sizeof(mt_option_value_t) + 16;
    for (size_t i = 0; i < nopts; i++) {
        mt_buf_t b;
        mt_buf_init(&b, -1);
        mt_buf_option_value(&b, i);
        room += (b.len < sizeof b.data ? b.len : sizeof b.data) + 1 + 15;
    }
    return room;
#else
    return nopts * (sizeof(mt_option_value_t) + MT_OPTION_STRING_MAX + 16);
#endif
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

/* A place's (and its frames') compilation directory left out where it is the run's own: a
 * relative file name is read against the run's directory anyway (render_sarif.c), and a
 * report of a program built where it runs reads as before. */
static void drop_run_directory(mt_place_t *p, const char *cwd)
{
    if (p->dir != NULL && strcmp(p->dir, cwd) == 0)
        p->dir = NULL;
    for (size_t i = 0; i < p->stack.nframes; i++) {
        mt_frame_t *f = (mt_frame_t *)&p->stack.frames[i]; /* (the report's own pool) */
        if (f->dir != NULL && strcmp(f->dir, cwd) == 0)
            f->dir = NULL;
    }
}

static void drop_run_directories(mt_report_t *r)
{
    if (r->cwd == NULL)
        return;
    for (size_t i = 0; i < r->nsites; i++)
        drop_run_directory(&r->sites[i].where, r->cwd);
    for (size_t i = 0; i < r->nerror_list; i++) {
        drop_run_directory(&r->error_list[i].alloc, r->cwd);
        drop_run_directory(&r->error_list[i].freed, r->cwd);
        drop_run_directory(&r->error_list[i].found, r->cwd);
    }
    for (size_t i = 0; i < r->injected.nsites; i++)
        drop_run_directory(&r->injected.sites[i].where, r->cwd);
}

void mt_report_shortage(mt_shortage_t *out)
{
    memset(out, 0, sizeof *out);
#ifdef MT_BARE_METAL
    mt_own_memory_t m;
    mt_own_memory_read(&m);
    mt_untracked_read(&out->blocks, &out->bytes);
    if (m.refused == 0 && out->blocks == 0)
        return;
    /* About what it takes: the buffer as it is, a record (and its share of a slab) for
     * each block that went without, the largest request refused (a slab, a table that
     * doubled, the report's working memory) and the report's eighth of all that; in KiB. */
    uint64_t more = out->blocks * (sizeof(mt_block_t) + 8) + m.largest_refused;
    uint64_t wanted = m.size + more + more / 7;
    out->size = m.size;
    out->wanted = (wanted + 1023) / 1024 * 1024;
#endif
}

void mt_report_peak_now(mt_report_t *r)
{
    if (r->peak.bytes >= r->stats.peak_bytes || r->stats.peak_bytes != r->stats.current_bytes)
        return;
    r->peak.bytes = r->stats.current_bytes;
    r->peak.blocks = r->stats.current_blocks;
    r->peak.event = (uint64_t)r->stats.total_blocks + (uint64_t)r->stats.frees;
    r->peak.usec = r->nsamples != 0 ? r->samples[r->nsamples - 1].usec : 0;
}

/* Whether a leak listed was made inside a library (a string it returned and the program
 * lost) and its stack never reached the program's code: the library keeps no frame
 * pointers (Debian's do not), and the line that called it is what the reader needs. */
static bool library_leak_cut_short(const mt_report_t *r)
{
    for (size_t i = 0; i < r->nsites; i++) {
        uint32_t id = r->sites[i].site;
        if (id == MT_SITE_NONE || !mt_place_is_system(id))
            continue;
        void *const *pcs;
        unsigned n = mt_stack_get(mt_site_get(id)->stack, &pcs);
        bool reached = false;
        for (unsigned k = 0; k < n && !reached; k++)
            reached = mt_code_owner(pcs[k]) == MT_CODE_PROGRAM;
        if (!reached)
            return true;
    }
    return false;
}

bool mt_report_build(mt_report_t *r, mt_when_t when, uint64_t since)
{
    memset(r, 0, sizeof *r);
    r->version = MEMTRACK_VERSION;
    r->program = mt_program_name();
    r->pid = mt_process_id();
    r->when = when;
    r->since = since;
    mt_stats_read(&r->stats);
    mt_stats_system_read(&r->system_counts);
    r->stats.errors = mt_error_total();
    r->errors = mt_error_total();
    r->leak_check = mt_leaks_mode() != MT_LEAKS_NONE || when != MT_WHEN_EXIT;
    r->lost_only =
        when == MT_WHEN_LOST || (when == MT_WHEN_EXIT && mt_leaks_mode() == MT_LEAKS_LOST);
    r->list_sites = mt_opt.report_sites;

    uint32_t nids = mt_site_count();
    /* A walk's depth: option stack's and the room for allocation wrappers (base/unwind.h). */
    size_t depth = mt_opt.stack == 0
                       ? 0
                       : (mt_opt.stack < MT_STACK_MAX ? mt_opt.stack : MT_STACK_MAX) + MT_WALK_ROOM;
    /* The working memory is sized for the largest report, except on bare metal, where it
     * is sized for this one: no frames (no site has a stack: base/unwind.c), room for the
     * errors logged and the options' values as they are (one thread: neither changes
     * while the report is built). Elsewhere another thread might add to them meanwhile. */
#ifdef MT_BARE_METAL
    depth = 0;
    size_t nerrors = mt_error_logged();
    size_t nunwritten = mt_opt.unwritten ? UNWRITTEN_MAX : 0;
    size_t cwd_room = 0; /* no working directory there */
#else
    size_t nerrors = MT_ERROR_LOG_MAX;
    size_t nunwritten = UNWRITTEN_MAX;
    size_t cwd_room = PATH_MAX;
#endif
    size_t nframes =
        ((size_t)nids + 3 * nerrors + mt_report_injected_failures()) * MT_STACK_ROOM(depth);
    size_t nrules = mt_suppress_count();
    size_t nopts = mt_option_count();
    scratch_t s = {NULL, 0, 0};
    s.size = (size_t)nids * sizeof(mt_leak_site_t) +
             nerrors * (sizeof(mt_error_t) + sizeof(mt_report_error_t)) +
             MT_ERROR_COUNT * sizeof(mt_name_count_t) +
             (MT_TIMELINE_MAX + 1) * sizeof(mt_sample_t) + nrules * sizeof(mt_rule_hits_t) +
             options_room(nopts) + cwd_room +
             NOT_PRINTED_MAX * (sizeof(mt_capped_t) + sizeof(mt_not_printed_t)) +
             nunwritten * (sizeof(mt_unwritten_site_t) + sizeof(mt_unwritten_t)) +
             nframes * sizeof(mt_frame_t) + MT_WRAPPERS_MAX * sizeof(mt_wrapper_t) +
             mt_report_injected_room() + 22 * 16;
    size_t round = MT_SMALL(4095u, 15u); /* pages, or the static buffer's 16 bytes */
    s.size = (s.size + round) & ~(size_t)round;
    s.base = mt_pages_alloc_for_report(s.size);
    if (s.base == NULL)
        return false;
    r->scratch = s.base;
    r->scratch_size = s.size;

    mt_leak_site_t *by_id = take(&s, (size_t)nids * sizeof(mt_leak_site_t));
    mt_error_t *raw = take(&s, nerrors * sizeof(mt_error_t));
    r->error_list = take(&s, nerrors * sizeof(mt_report_error_t));
    r->error_kinds = take(&s, MT_ERROR_COUNT * sizeof(mt_name_count_t));
    r->samples = take(&s, (MT_TIMELINE_MAX + 1) * sizeof(mt_sample_t));
    r->rules = take(&s, nrules * sizeof(mt_rule_hits_t) + 1);
    r->options = take(&s, nopts * sizeof(mt_option_value_t) + 1);
    mt_capped_t *capped = take(&s, NOT_PRINTED_MAX * sizeof(mt_capped_t));
    r->not_printed = take(&s, NOT_PRINTED_MAX * sizeof(mt_not_printed_t));
    mt_unwritten_site_t *unwritten = take(&s, nunwritten * sizeof(mt_unwritten_site_t));
    r->unwritten = take(&s, nunwritten * sizeof(mt_unwritten_t));
    r->wrappers = take(&s, MT_WRAPPERS_MAX * sizeof(mt_wrapper_t));
    frame_pool_t pool = {take(&s, nframes * sizeof(mt_frame_t) + 1), NULL, depth};
    pool.end = pool.next != NULL ? pool.next + nframes : NULL;
    char *cwd = cwd_room != 0 ? take(&s, cwd_room) : NULL;
    r->cwd = cwd != NULL && getcwd(cwd, cwd_room) != NULL ? cwd : NULL;

    for (size_t i = 0; i < nrules; i++)
        r->rules[i].rule = mt_suppress_rule(i);
    r->nrules = nrules;
    mt_report_shortage(&r->shortage); /* (before the leaks: untracked blocks, no scan) */
    uint64_t live[2] = {0, 0};
    if (r->leak_check)
        mt_report_build_leaks(r, by_id, nids, since, &pool, live);
    if (r->leak_check && when != MT_WHEN_SINCE) {
        /* Threads still running may have made blocks between the counters' reading and the
         * walk of the table: the report never says fewer of the program's blocks live, or a
         * lower peak, than the walk found. (A single thread's counters already agree.) */
        uint64_t live_bytes = live[0], live_blocks = live[1];
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
    r->stacks_unwalked = mt_regions_unwalked();
    r->stacks_unavailable = mt_unwind_unavailable();
    r->stacks_no_frame_pointers =
        mt_opt.stack > 1 && mt_opt.unwind[0] != 'e' &&
        (mt_place_stacks_stop_short((unsigned)depth) || library_leak_cut_short(r));
    build_errors(r, raw, nerrors, &pool);
    build_not_printed(r, capped);
    build_unwritten(r, unwritten);
    mt_report_build_injected(r, &s, &pool);
    r->nsamples = mt_timeline_copy(r->samples, MT_TIMELINE_MAX + 1, &r->peak);
    mt_report_peak_now(r);
    build_options(r, &s);
    drop_run_directories(r);
    return true;
}

void mt_report_free(mt_report_t *r)
{
    if (r->groups != NULL)
        mt_pages_free(r->groups, r->groups_size);
    r->groups = NULL;
    mt_pages_free(r->scratch, r->scratch_size);
    r->scratch = NULL;
    r->sites = NULL;
    r->nsites = 0;
}
