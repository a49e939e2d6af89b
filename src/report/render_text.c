/* render_text.c - the report as lines of text, "memtrack: " first on each.
 *
 * The form people see at the end of a run. It lists the largest sites only (option
 * report_sites) and counts errors by kind, since each error was printed when found; the
 * memtrack-report tool can ask for the error list too, for a saved report.
 *
 * Every string of the model is written escaped (mt_buf_text), kinds too: the library's come
 * from its own tables, but a report read back may say anything, and a control character or
 * a line break in it must not reach the terminal as one.
 */
#include <inttypes.h>
#include <string.h>

#include "errors/format.h"

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

/* A site's callers start two columns past the last digit of the widest size, never where
 * a smaller site's size starts: "      4 bytes..." must not read as a caller of the site
 * above it. */
static void print_leak_site(mt_buf_t *b, const mt_leak_site_t *s, unsigned width)
{
    char indent[32];
    unsigned n = width + 4 > 6 ? width + 4 : 6;
    memset(indent, ' ', n); /* (width: at most 20 digits) */
    indent[n] = '\0';
    mt_buf_line(b);
    mt_buf_str(b, "  ");
    pad_to(b, s->bytes, width);
    mt_buf_str(b, s->bytes == 1 ? " byte in " : " bytes in ");
    mt_buf_count(b, s->blocks, "block", "blocks");
    mt_buf_str(b, " at ");
    mt_buf_place(b, &s->where);
    mt_buf_str(b, " by ");
    mt_buf_text(b, s->where.kind != NULL ? s->where.kind : "?");
    if (s->where.owner != NULL) {
        mt_buf_fmt(b, " \"%-s\"", s->where.owner);
    }
    mt_buf_str(b, ": ");
    for (unsigned i = 0; i < s->nseqs; i++) {
        if (i > 0)
            mt_buf_str(b, ", ");
        mt_buf_char(b, '#');
        mt_buf_u64(b, s->seqs[i]);
    }
    if (s->blocks > s->nseqs) {
        mt_buf_fmt(b, "%s%" PRIu64 " more", s->nseqs > 0 ? " and " : "", s->blocks - s->nseqs);
    }
    mt_buf_char(b, '\n');
    mt_buf_stack_lines(b, &s->where, indent);
    if (s->held != NULL && s->held->kind != MT_HOLDER_NONE) {
        mt_buf_line(b);
        mt_buf_str(b, indent);
        mt_buf_holder(b, s->held);
        mt_buf_char(b, '\n');
    }
}

/* Whether the list is shown by class: once scanned, unless every leak is lost (then it
 * reads as it did before the scan: each one is a leak to fix). */
static bool by_class(const mt_report_t *r)
{
    for (size_t i = 0; r->classified && i < r->nsites; i++)
        if (r->sites[i].leak_class != MT_LEAK_LOST)
            return true;
    return false;
}

/* "still reachable: 50 bytes in 4 blocks (the program still points at them)" */
static void print_class_header(const mt_report_t *r, mt_buf_t *b, mt_leak_class_t c)
{
    uint64_t bytes = 0, blocks = 0;
    for (size_t i = 0; i < r->nsites; i++)
        if (r->sites[i].leak_class == c) {
            bytes += r->sites[i].bytes;
            blocks += r->sites[i].blocks;
        }
    mt_buf_line(b);
    mt_buf_str(b, mt_leak_class_text[c]);
    mt_buf_str(b, ": ");
    mt_buf_count(b, bytes, "byte", "bytes");
    mt_buf_str(b, " in ");
    mt_buf_count(b, blocks, "block", "blocks");
    mt_buf_fmt(b, " (%s)\n", mt_leak_class_why[c]);
}

static void print_error_counts(const mt_report_t *r, mt_buf_t *b)
{
    mt_buf_line(b);
    mt_buf_str(b, "errors: ");
    for (size_t k = 0; k < r->nerror_kinds; k++) {
        mt_buf_fmt(b, "%s%-s %" PRIu64, k == 0 ? "" : ", ", r->error_kinds[k].name,
                   r->error_kinds[k].count);
    }
    mt_buf_char(b, '\n');
}

/* What found an error: "free at a.c:9 in f()", "memtrack_check() at ...", "the exit-time
 * check", "the crash report", "the periodic check at ...". */
static void print_error_list(const mt_report_t *r, mt_buf_t *b)
{
    for (size_t i = 0; i < r->nerror_list; i++) {
        mt_buf_line(b);
        mt_buf_str(b, "  ");
        mt_buf_error_summary(b, &r->error_list[i]);
        mt_buf_char(b, '\n');
    }
    if (r->nerror_list < r->errors) {
        mt_buf_line(b);
        mt_buf_str(b, "  ... and ");
        mt_buf_count(b, r->errors - r->nerror_list, "more error", "more errors");
        mt_buf_str(b, " not logged\n");
    }
}

/* What the option max_messages kept quiet, one line per kind of error and place. */
static void print_not_printed(const mt_report_t *r, mt_buf_t *b)
{
    for (size_t i = 0; i < r->nnot_printed; i++) {
        const mt_not_printed_t *n = &r->not_printed[i];
        mt_buf_line(b);
        mt_buf_fmt(b, "  %" PRIu64 " more %-s%s found by ", n->count, n->kind,
                   n->count == 1 ? " error" : " errors");
        mt_buf_found_by(b, &n->found, 0);
        mt_buf_fmt(b, "%s%" PRIu64 ")\n",
                   n->count == 1 ? " was not printed (max_messages="
                                 : " were not printed (max_messages=",
                   r->max_messages);
    }
}

/* "12.5%", rounded down so that 99.96% does not show as 100%. */
static void print_percent(mt_buf_t *b, uint64_t part, uint64_t whole)
{
#ifdef __SIZEOF_INT128__
    uint64_t tenths = whole == 0 ? 0 : (uint64_t)((unsigned __int128)part * 1000 / whole);
#else /* 32-bit targets: exact while part * 1000 fits, which any count of bytes does there */
    uint64_t tenths = whole == 0                  ? 0
                      : part <= UINT64_MAX / 1000 ? part * 1000 / whole
                                                  : (uint64_t)((long double)part * 1000 / whole);
#endif
    mt_buf_fmt(b, "%" PRIu64 ".%" PRIu64 "%%", tenths / 10, tenths % 10);
}

/* Option unwritten: the share of freed bytes never written, by allocation site. */
static void print_unwritten(const mt_report_t *r, mt_buf_t *b)
{
    if (r->nunwritten == 0)
        return;
    mt_buf_line(b);
    mt_buf_str(b, "bytes never written before free, by site (option unwritten):\n");
    for (size_t i = 0; i < r->nunwritten; i++) {
        const mt_unwritten_t *u = &r->unwritten[i];
        mt_buf_line(b);
        mt_buf_str(b, "  ");
        print_percent(b, u->unwritten, u->bytes);
        mt_buf_fmt(b, " (%" PRIu64 " of ", u->unwritten);
        mt_buf_count(b, u->bytes, "byte", "bytes");
        mt_buf_str(b, " in ");
        mt_buf_count(b, u->blocks, "block", "blocks");
        mt_buf_str(b, ") at ");
        mt_buf_place(b, &u->where);
        mt_buf_fmt(b, " by %-s\n", u->where.kind != NULL ? u->where.kind : "?");
    }
}

/* Options fail_*: what was counted and failed, by the call that got NULL. Said whenever a
 * fail_ option was set, a clean run's report included: the run was not an ordinary one. */
static void print_injected(const mt_report_t *r, mt_buf_t *b)
{
    const mt_injected_t *in = &r->injected;
    if (!in->armed)
        return;
    mt_buf_line(b);
    if (in->failed == 0)
        mt_buf_str(b, "no allocation");
    else
        mt_buf_count(b, in->failed, "allocation", "allocations");
    mt_buf_fmt(b, " failed on purpose, of %" PRIu64 " counted", in->counted);
    if (in->windows != 0) {
        mt_buf_fmt(b, " (%" PRIu64 " inside memtrack_fail_begin() windows)", in->in_windows);
    }
    if (in->seed != 0) {
        mt_buf_str(b, "; fail_seed=");
        mt_buf_u64(b, in->seed);
    }
    mt_buf_str(b, in->nsites > 0 ? ":\n" : "\n");
    uint64_t listed = 0;
    for (size_t i = 0; i < in->nsites; i++) {
        const mt_injected_site_t *g = &in->sites[i];
        listed += g->failures;
        mt_buf_line(b);
        mt_buf_str(b, "  ");
        mt_buf_count(b, g->failures, "failure", "failures");
        mt_buf_str(b, " at ");
        mt_buf_place(b, &g->where);
        mt_buf_str(b, " by ");
        mt_buf_text(b, g->where.kind != NULL ? g->where.kind : "?");
        if (g->where.owner != NULL) {
            mt_buf_fmt(b, " \"%-s\"", g->where.owner);
        }
        mt_buf_str(b, g->nnths == 1 ? ": allocation " : ": allocations ");
        for (unsigned k = 0; k < g->nnths; k++) {
            mt_buf_str(b, k == 0 ? "" : ", ");
            mt_buf_u64(b, g->nths[k]);
        }
        if (g->failures > g->nnths) {
            mt_buf_fmt(b, " and %" PRIu64 " more", g->failures - g->nnths);
        }
        mt_buf_str(b, " (");
        mt_buf_count(b, g->bytes, "byte", "bytes");
        mt_buf_str(b, ")\n");
        mt_buf_stack_lines(b, &g->where, "      ");
    }
    if (listed < in->failed) {
        mt_buf_line(b);
        mt_buf_str(b, "  ... and ");
        mt_buf_count(b, in->failed - listed, "more failure", "more failures");
        mt_buf_str(b, " not logged\n");
    }
}

static void print_apart(mt_buf_t *b, const mt_apart_t *a, const char *why)
{
    if (a->blocks == 0)
        return;
    mt_buf_line(b);
    mt_buf_str(b, "  not listed: ");
    mt_buf_count(b, a->bytes, "byte", "bytes");
    mt_buf_str(b, " in ");
    mt_buf_count(b, a->blocks, "block", "blocks");
    mt_buf_str(b, " from ");
    mt_buf_count(b, a->sites, "site", "sites");
    mt_buf_str(b, why);
    mt_buf_char(b, '\n');
}

/* "  shown at their callers: xmalloc() (x.c:9, an allocation wrapper: ...), ...". */
static void print_wrappers(const mt_report_t *r, mt_buf_t *b)
{
    for (size_t i = 0; i < r->nwrappers; i++) {
        const mt_wrapper_t *w = &r->wrappers[i];
        mt_buf_line(b);
        mt_buf_fmt(b, "%s%-s() (", i == 0 ? "  shown at their callers: " : "    and ",
                   w->fn.func != NULL ? w->fn.func : "?");
        if (w->fn.file != NULL) {
            mt_buf_fmt(b, "%-s:%" PRIu64 ", ", w->fn.file,
                       (uint64_t)(w->fn.line < 0 ? 0 : w->fn.line));
        }
        mt_buf_str(b, w->detected ? "an allocation wrapper: small, allocates only there, returns "
                                    "the block; wrappers=0 keeps it)\n"
                                  : "option alloc_fn)\n");
    }
}

/* What the stacks could not show, once, with what to do about it. */
static void print_stack_notes(const mt_report_t *r, mt_buf_t *b)
{
    if (r->stacks_no_frame_pointers) {
        mt_buf_line(b);
        mt_buf_str(b, "  stacks: most call stacks stop before main: code built without frame "
                      "pointers cuts them short; build it with -fno-omit-frame-pointer (as "
                      "memtrack cc does) or run with MEMTRACK_OPTIONS=unwind=exact\n");
    }
    if (r->stacks_unwalked != 0) {
        mt_buf_line(b);
        mt_buf_str(b, "  stacks: ");
        mt_buf_count(b, r->stacks_unwalked, "allocation was", "allocations were");
        mt_buf_str(b, " made on a stack memtrack was not told of (a coroutine's switched to "
                      "without swapcontext): their sites have no callers\n");
    }
}

static void print_sites(const mt_report_t *r, mt_buf_t *b, bool at_exit)
{
    if (r->nsites == 0)
        return;
    size_t shown = r->nsites < r->list_sites ? r->nsites : r->list_sites;
    bool classes = by_class(r);
    uint64_t largest = 0;
    for (size_t i = 0; i < r->nsites; i++) /* (by class, the largest may come later) */
        largest = r->sites[i].bytes > largest ? r->sites[i].bytes : largest;
    unsigned width = digits_of(largest);
    mt_buf_line(b);
    if (classes)
        mt_buf_str(b, at_exit ? "leaks by how they are held, then by site, largest first:\n"
                              : "live blocks by how they are held, then by site, largest first:\n");
    else
        mt_buf_str(b, at_exit ? "leaks by site, largest first:\n"
                              : "live blocks by site, largest first:\n");
    for (size_t i = 0; i < shown; i++) {
        if (classes && (i == 0 || r->sites[i].leak_class != r->sites[i - 1].leak_class))
            print_class_header(r, b, r->sites[i].leak_class);
        print_leak_site(b, &r->sites[i], width);
    }
    if (shown < r->nsites) {
        uint64_t bytes = 0, blocks = 0;
        for (size_t i = shown; i < r->nsites; i++) {
            bytes += r->sites[i].bytes;
            blocks += r->sites[i].blocks;
        }
        mt_buf_line(b);
        mt_buf_str(b, "  ... and ");
        mt_buf_count(b, r->nsites - shown, "more site", "more sites");
        mt_buf_str(b, ": ");
        mt_buf_count(b, bytes, "byte", "bytes");
        mt_buf_str(b, " in ");
        mt_buf_count(b, blocks, "block", "blocks");
        mt_buf_str(b, " (option report_sites)\n");
    }
    print_wrappers(r, b);
    print_stack_notes(r, b);
}

static void print_counted_apart(const mt_report_t *r, mt_buf_t *b)
{
    print_apart(b, &r->suppressed, " (suppressed)");
    for (size_t i = 0; i < r->nrules; i++) {
        const mt_rule_hits_t *h = &r->rules[i];
        if (h->hits.blocks == 0)
            continue;
        mt_buf_line(b);
        mt_buf_str(b, "    ");
        mt_buf_count(b, h->hits.blocks, "block", "blocks");
        mt_buf_fmt(b, " by rule %-s\n", h->rule);
    }
    print_apart(b, &r->system, " made inside system libraries (option system_leaks)");
    print_apart(b, &r->held_apart,
                r->when == MT_WHEN_LOST ? " the program still points at"
                                        : " the program still points at (option leaks=lost)");
}

/* The stacks the scan could not read: what only they hold shows as lost. */
static void print_unread(const mt_report_t *r, mt_buf_t *b)
{
    if (r->threads_unread == 0)
        return;
    mt_buf_line(b);
    mt_buf_str(b, "the stacks of ");
    mt_buf_count(b, r->threads_unread, "thread", "threads");
    mt_buf_str(b, " could not be found: blocks only they point at show as lost\n");
}

/* Blocks made since a checkpoint: a short report of those sites only. */
/* "peak 60960 bytes in 73 blocks": the bytes' peak and the blocks live at that moment; the
 * most blocks live at once come after it when that was another moment, never paired with
 * the bytes as if it were the same one. */
static void print_peak(mt_buf_t *b, const memtrack_stats_t *st, uint64_t blocks_then)
{
    mt_buf_count(b, st->peak_bytes, "byte", "bytes");
    mt_buf_str(b, " in ");
    mt_buf_count(b, blocks_then, "block", "blocks");
    if (blocks_then != st->peak_blocks) {
        mt_buf_str(b, ", ");
        mt_buf_count(b, st->peak_blocks, "block", "blocks");
        mt_buf_str(b, " at most");
    }
}

/* "; inside system libraries: 17 allocations (5120 bytes), 16 frees": the blocks the
 * program's counts leave out, when there were any. */
static void print_system_counts(mt_buf_t *b, const mt_system_counts_t *system)
{
    if (system == NULL || system->total_blocks == 0)
        return;
    mt_buf_str(b, "; inside system libraries: ");
    mt_buf_count(b, system->total_blocks, "allocation", "allocations");
    mt_buf_str(b, " (");
    mt_buf_count(b, system->total_bytes, "byte", "bytes");
    mt_buf_str(b, "), ");
    mt_buf_count(b, system->frees, "free", "frees");
}

void mt_buf_stats_line(mt_buf_t *b, const memtrack_stats_t *st, uint64_t blocks_then,
                       const mt_system_counts_t *system)
{
    mt_buf_line(b);
    mt_buf_str(b, "peak ");
    print_peak(b, st, blocks_then);
    mt_buf_str(b, "; ");
    mt_buf_count(b, st->total_blocks, "allocation", "allocations");
    mt_buf_str(b, " (");
    mt_buf_count(b, st->total_bytes, "byte", "bytes");
    mt_buf_str(b, "), ");
    mt_buf_count(b, st->frees, "free", "frees");
    mt_buf_fmt(b, ", %" PRIu64 " failed", (uint64_t)st->failed);
    print_system_counts(b, system);
    mt_buf_char(b, '\n');
}

/* memtrack_check_leaks(): the lost blocks now, only when there are some. */
static void render_lost(const mt_report_t *r, mt_buf_t *b, unsigned flags)
{
    if (r->leaked_blocks == 0) {
        if (flags & MT_TEXT_SILENT_WHEN_CLEAN)
            return;
        mt_buf_line(b);
        mt_buf_str(b, r->classified ? "no blocks lost now\n"
                                    : "no memory for the leak scan: nothing was checked\n");
        print_counted_apart(r, b);
        return;
    }
    mt_buf_line(b);
    mt_buf_count(b, r->leaked_bytes, "byte", "bytes");
    mt_buf_str(b, " lost in ");
    mt_buf_count(b, r->leaked_blocks, "block", "blocks");
    mt_buf_str(b, " from ");
    mt_buf_count(b, r->nsites, "site", "sites");
    mt_buf_fmt(b, " now in %-s (pid %" PRIu64 ")\n", r->program, r->pid);
    print_unread(r, b);
    print_sites(r, b, true);
    print_counted_apart(r, b);
}

static void render_since(const mt_report_t *r, mt_buf_t *b, unsigned flags)
{
    if (r->leaked_blocks == 0) {
        if (flags & MT_TEXT_SILENT_WHEN_CLEAN)
            return;
        mt_buf_line(b);
        mt_buf_fmt(b, "no blocks made since checkpoint #%" PRIu64 " are live\n", r->since);
        print_counted_apart(r, b);
        return;
    }
    mt_buf_line(b);
    mt_buf_count(b, r->leaked_bytes, "byte", "bytes");
    mt_buf_str(b, " in ");
    mt_buf_count(b, r->leaked_blocks, "block", "blocks");
    mt_buf_fmt(b, " made since checkpoint #%" PRIu64 " still live in ", r->since);
    mt_buf_program(b, r->program, r->pid);
    mt_buf_char(b, '\n');
    print_unread(r, b);
    print_sites(r, b, false);
    print_counted_apart(r, b);
}

void mt_buf_shortage_lines(mt_buf_t *b, const mt_shortage_t *s)
{
    if (s->size == 0)
        return;
    mt_buf_line(b);
    mt_buf_str(b, "the tracker's memory ran out: ");
    if (s->blocks == 0) {
        mt_buf_str(b, "every block was tracked, but not all the tracker keeps (sites, errors, "
                      "the report's working memory)\n");
    } else {
        mt_buf_count(b, s->blocks, "block", "blocks");
        mt_buf_str(b, " (");
        mt_buf_count(b, s->bytes, "byte", "bytes");
        mt_buf_str(b, s->blocks == 1 ? ") was" : ") were");
        mt_buf_str(b, " not tracked: their leaks and errors are not in this report\n");
    }
    mt_buf_line(b);
    mt_buf_fmt(b,
               "  MEMTRACK_STATIC_MEMORY(%" PRIu64
               ") is too small: give it about MEMTRACK_STATIC_MEMORY(%" PRIu64 ")\n",
               s->size, s->wanted);
}

void mt_render_text(const mt_report_t *r, mt_buf_t *b, unsigned flags)
{
    const memtrack_stats_t *st = &r->stats;
    bool at_exit = r->when == MT_WHEN_EXIT;

    if (r->when == MT_WHEN_SINCE || r->when == MT_WHEN_LOST) {
        (r->when == MT_WHEN_SINCE ? render_since : render_lost)(r, b, flags);
        mt_buf_flush(b);
        return;
    }
    if (!mt_report_found(r)) {
        if (flags & MT_TEXT_SILENT_WHEN_CLEAN) {
            mt_buf_shortage_lines(b, &r->shortage); /* a clean run may have missed blocks */
            print_injected(r, b);  /* asked for with options fail_*: shown anyway */
            print_unwritten(r, b); /* asked for with option unwritten: shown anyway */
            mt_buf_flush(b);
            return; /* a clean run prints nothing else, as LeakSanitizer does */
        }
        mt_buf_line(b);
        mt_buf_str(b, at_exit ? "no leaks, no errors (" : "no live blocks, no errors (");
        mt_buf_count(b, st->total_blocks, "allocation", "allocations");
        mt_buf_str(b, ", peak ");
        print_peak(b, st, mt_report_blocks_at_peak(r));
        print_system_counts(b, &r->system_counts);
        mt_buf_str(b, ")\n");
        mt_buf_shortage_lines(b, &r->shortage);
        print_injected(r, b);
        print_counted_apart(r, b);
        print_unwritten(r, b);
        mt_buf_flush(b);
        return;
    }

    mt_buf_line(b);
    mt_buf_str(b, at_exit ? "report for " : "live blocks of ");
    mt_buf_program(b, r->program, r->pid);
    if (r->partial != NULL) { /* its leaks are totals: there are no sites to count */
        mt_buf_str(b, ": ");
        mt_buf_text(b, r->partial);
    }
    mt_buf_char(b, '\n');

    mt_buf_line(b);
    if (r->leak_check) {
        mt_buf_count(b, r->leaked_bytes, "byte", "bytes");
        mt_buf_str(b, at_exit ? " leaked in " : " live in ");
        mt_buf_count(b, r->leaked_blocks, "block", "blocks");
        if (r->partial == NULL) {
            mt_buf_str(b, " from ");
            mt_buf_count(b, r->nsites, "site", "sites");
        }
        mt_buf_str(b, "; ");
    }
    mt_buf_count(b, r->errors, "error", "errors");
    mt_buf_str(b, " found\n");

    mt_buf_stats_line(b, st, mt_report_blocks_at_peak(r), &r->system_counts);
    if (r->stacks_unavailable != NULL) { /* once: no "from" line anywhere below */
        mt_buf_line(b);
        mt_buf_str(b, "call stacks: not available on this target (");
        mt_buf_text(b, r->stacks_unavailable);
        mt_buf_str(b, ")\n");
    }
    if (r->threads_running != 0) {
        mt_buf_line(b);
        mt_buf_count(b, r->threads_running, "other thread was", "other threads were");
        mt_buf_str(b, " still running: the report is what they had done when it was taken\n");
    }
    mt_buf_shortage_lines(b, &r->shortage);
    print_injected(r, b);

    if (r->errors != 0) {
        print_error_counts(r, b);
        print_not_printed(r, b);
        if (flags & MT_TEXT_LIST_ERRORS)
            print_error_list(r, b);
    }
    if (r->leak_check) {
        print_unread(r, b);
        print_sites(r, b, at_exit);
        print_counted_apart(r, b);
    }
    print_unwritten(r, b);
    mt_buf_flush(b);
}
