/* leaks.c - the leaks of a report: live blocks grouped by the place that made them and,
 * once the leak scan (api/reach.c) told how each is held, by its class (lost, indirectly
 * lost, possibly lost, still reachable) and what holds it (report/holders.c).
 *
 * Groups are made in memory mapped for them (a site's blocks may be held by many
 * variables, so there may be more groups than sites), sorted with our own heap sort:
 * nothing here allocates through the tracker. Blocks from different call sites that print
 * the same (a header's inline function compiled into two files) are one group. Groups made
 * inside system libraries (track_all) and those a suppression rule matches are counted
 * apart; with option leaks=lost, so are the blocks the program still holds.
 */
#include <string.h>

#include "api/api.h"
#include "api/reach.h"
#include "base/heap_sort.h"
#include "base/symbolize.h"
#include "records/place.h"
#include "report/holders.h"
#include "report/leaks.h"
#include "report/report.h"
#include "report/wrappers.h"

#define MAX_SEQS (sizeof(((mt_leak_site_t *)0)->seqs) / sizeof(uint64_t))

typedef struct build_ctx {
    mt_leak_site_t *by_id;
    uint32_t nids;
    unsigned keep_seqs;
    uint64_t since;                         /* count blocks with this sequence number or later */
    uint64_t program_bytes, program_blocks; /* of the blocks counted, the program's */
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

/* Whether a block made with meta is counted in a report of the blocks made at or after
 * `since`. A system library's block has no number: it is counted (apart) in the reports of
 * all live blocks, and in none since a checkpoint, which are the program's blocks made since. */
static bool counted_since(uint64_t meta, uint64_t since)
{
    return (meta & MT_META_FLAG_SYSTEM) != 0 ? since <= 1 : MT_META_SEQ(meta) >= since;
}

static void count_block(mt_block_t *b, void *ctx)
{
    build_ctx_t *c = ctx;
    if (!counted_since(b->meta, c->since))
        return;
    uint32_t id = b->site < c->nids ? b->site : MT_SITE_NONE;
    mt_leak_site_t *s = &c->by_id[id];
    s->bytes += b->size;
    s->blocks++;
    if ((b->meta & MT_META_FLAG_SYSTEM) == 0) {
        add_seq(s, MT_META_SEQ(b->meta), c->keep_seqs);
        c->program_bytes += b->size;
        c->program_blocks++;
    }
}

/* ---- the orders leaks are sorted in ---------------------------------------------------- */

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
    if (x->leak_class != y->leak_class)
        return x->leak_class < y->leak_class ? -1 : 1;
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
    if (c == 0)
        c = mt_holder_cmp(x->held, y->held);
    return c;
}

/* The order of what stacks print: frame by frame, the shorter first. */
static int cmp_stacks(const mt_stack_t *a, const mt_stack_t *b)
{
    for (size_t i = 0; i < a->nframes && i < b->nframes; i++) {
        const mt_frame_t *x = &a->frames[i], *y = &b->frames[i];
        int c = cmp_str(x->file, y->file);
        if (c == 0 && x->line != y->line)
            c = x->line < y->line ? -1 : 1;
        if (c == 0)
            c = cmp_str(x->func, y->func);
        if (c == 0 && x->file == NULL) {
            c = cmp_str(x->module, y->module);
            if (c == 0 && x->offset != y->offset)
                c = x->offset < y->offset ? -1 : 1;
        }
        if (c == 0 && x->inlined != y->inlined) /* "inlined into" or "from" the next */
            c = x->inlined ? 1 : -1;
        if (c != 0)
            return c;
    }
    return (a->nframes > b->nframes) - (a->nframes < b->nframes);
}

/* The order of what a site prints: kind, file, line, function, owner; a place without a file
 * prints its address, module and offset too. 0 for places that print the same. */
static int cmp_printed(const mt_leak_site_t *x, const mt_leak_site_t *y)
{
    const mt_place_t *a = &x->where, *b = &y->where;
    int c = cmp_str(a->kind, b->kind);
    if (c == 0)
        c = cmp_str(a->file, b->file);
    if (c == 0 && a->line != b->line)
        c = a->line < b->line ? -1 : 1;
    if (c == 0)
        c = cmp_str(a->func, b->func);
    if (c == 0)
        c = cmp_str(a->owner, b->owner);
    if (c == 0 && a->file == NULL) {
        c = cmp_str(a->module, b->module);
        if (c == 0 && a->pc != b->pc)
            c = a->pc < b->pc ? -1 : 1;
        if (c == 0 && a->offset != b->offset)
            c = a->offset < b->offset ? -1 : 1;
    }
    if (c == 0 && a->inlined != b->inlined)
        c = a->inlined ? 1 : -1;
    if (c == 0)
        c = cmp_stacks(&a->stack, &b->stack);
    if (c == 0 && x->leak_class != y->leak_class)
        c = x->leak_class < y->leak_class ? -1 : 1;
    if (c == 0)
        c = mt_holder_cmp(x->held, y->held);
    return c;
}

/* The report's order: lost first (blocks not scanned have no class), then largest first. */
static int cmp_size(const mt_leak_site_t *x, const mt_leak_site_t *y)
{
    if (x->leak_class != y->leak_class)
        return x->leak_class < y->leak_class ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->blocks != y->blocks)
        return x->blocks < y->blocks ? 1 : -1;
    return cmp_place(x, y);
}

/* The orders above, as mt_heap_sort takes them (no allocation while the report is made). */
static int by_place(const void *a, const void *b)
{
    return cmp_place(a, b);
}

static int by_printed(const void *a, const void *b)
{
    return cmp_printed(a, b);
}

static int by_size(const void *a, const void *b)
{
    return cmp_size(a, b);
}

static void add_apart(mt_apart_t *a, const mt_leak_site_t *s)
{
    a->bytes += s->bytes;
    a->blocks += s->blocks;
    a->sites++;
}

static bool still_held(mt_leak_class_t c)
{
    return c == MT_LEAK_POSSIBLE || c == MT_LEAK_REACHABLE;
}

/* Blocks a system library made that the program lost: no library keeps a cache it cannot
 * reach, so a block nothing points at was handed to the program and forgotten there (the
 * string json_dumps returns, a lua_State never closed). Listed as the program's leaks,
 * unless the library is the C runtime itself (told by identity: records/place.c), whose
 * blocks are never the program's to free. What a library still holds stays apart. */
static bool system_block_lost_by_program(const mt_leak_site_t *s)
{
    return (s->leak_class == MT_LEAK_LOST || s->leak_class == MT_LEAK_INDIRECT) &&
           !mt_place_in_runtime(s->site);
}

/* Resolves each site's place and stack, moves the system's sites out of the list (but what
 * the program lost of theirs), shows the sites inside allocation wrappers at their callers,
 * then moves out the suppressed. */
static size_t sort_out_sites(mt_report_t *r, mt_leak_site_t *sites, size_t n, frame_pool_t *pool)
{
    size_t kept = 0;
    /* With leaks=lost and no rule to match, what the program still holds is only counted
     * (keep_lost): its places are never read, nor the debug information they need. */
    bool held_unread = r->lost_only && mt_suppress_count() == 0;
    for (size_t i = 0; i < n; i++) {
        mt_leak_site_t *s = &sites[i];
        if (mt_place_is_system(s->site) && !mt_opt.system_leaks &&
            !system_block_lost_by_program(s)) {
            add_apart(&r->system, s);
            continue;
        }
        if (!(held_unread && still_held(s->leak_class))) {
            (void)mt_place_of(s->site, &s->where);
            resolve_stack(r, pool, s->site, &s->where);
        }
        sites[kept++] = *s;
    }
    n = kept;
    kept = 0;
    for (size_t i = 0; i < n; i++) {
        mt_leak_site_t *s = &sites[i];
        long rule = mt_suppress_match(&s->where, s->held);
        if (rule >= 0) {
            add_apart(&r->suppressed, s);
            add_apart(&r->rules[rule].hits, s);
            continue;
        }
        sites[kept++] = *s;
    }
    return kept;
}
/* ---- groups of the blocks the scan classified ---------------------------------------------- */

typedef struct leak_key {
    uint64_t seq;
    uint64_t holder_id;
    uint32_t site;
    uint32_t block; /* in the scan's blocks */
    uint8_t leak_class;
    uint8_t holder;
    bool chained;
    bool named; /* holder_wanted */
} leak_key_t;

/* By group (class, site, holder), then by sequence number within one. */
static int cmp_key(const leak_key_t *a, const leak_key_t *b)
{
    if (a->leak_class != b->leak_class)
        return a->leak_class < b->leak_class ? -1 : 1;
    if (a->site != b->site)
        return a->site < b->site ? -1 : 1;
    if (a->holder != b->holder)
        return a->holder < b->holder ? -1 : 1;
    if (a->holder_id != b->holder_id)
        return a->holder_id < b->holder_id ? -1 : 1;
    if (a->chained != b->chained)
        return a->chained ? 1 : -1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static bool same_group(const leak_key_t *a, const leak_key_t *b)
{
    return a->leak_class == b->leak_class && a->site == b->site && a->holder == b->holder &&
           a->holder_id == b->holder_id && a->chained == b->chained;
}

static void sift_keys(leak_key_t *a, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && cmp_key(&a[child], &a[child + 1]) < 0)
            child++;
        if (cmp_key(&a[root], &a[child]) >= 0)
            return;
        leak_key_t t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void sort_keys(leak_key_t *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_keys(a, i, n);
    for (size_t end = n; end-- > 1;) {
        leak_key_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_keys(a, 0, end);
    }
}

static mt_leak_class_t class_of(uint8_t state)
{
    switch (state) {
    case MT_REACH_INDIRECT: return MT_LEAK_INDIRECT;
    case MT_REACH_POSSIBLE: return MT_LEAK_POSSIBLE;
    case MT_REACH_REACHABLE: return MT_LEAK_REACHABLE;
    default: return MT_LEAK_LOST;
    }
}

/* Whether what holds block b may be shown, or asked by a held: rule. Not for a block still
 * held whose group is only counted apart: a system library's (unless system_leaks), and with
 * leaks=lost any. Naming a variable reads its module's debug information, the C library's
 * often (tens of milliseconds, megabytes): a clean run under --preload then reads none. */
static bool holder_wanted(const mt_report_t *r, const mt_reach_block_t *b)
{
    if (!still_held(class_of(b->state)))
        return true; /* listed */
    if (!mt_opt.system_leaks &&
        mt_place_is_system(b->site < mt_site_count() ? b->site : MT_SITE_NONE))
        return false;
    return !r->lost_only || mt_suppress_any_held();
}

/* Groups the blocks made at or after `since` by class, site and holder, into r->groups;
 * returns how many there are (0 with *ok false when there was no memory for them).
 * program[] gets the program's blocks among them (bytes, blocks). */
static size_t group_scanned(mt_report_t *r, mt_holders_t *h, uint64_t since, unsigned keep,
                            bool *ok, uint64_t program[2])
{
    const mt_reach_t *reach = h->reach;
    size_t keys_size = reach->n * sizeof(leak_key_t);
    leak_key_t *keys = mt_pages_alloc_for_report(keys_size != 0 ? keys_size : 1);
    *ok = keys != NULL;
    if (keys == NULL)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < reach->n; i++) {
        const mt_reach_block_t *b = &reach->blocks[i];
        if (!counted_since(b->meta, since))
            continue;
        if ((b->meta & MT_META_FLAG_SYSTEM) == 0) {
            program[0] += b->size;
            program[1]++;
        }
        bool named = holder_wanted(r, b);
        mt_holder_key_t hk =
            named ? mt_holder_key(h, (uint32_t)i) : (mt_holder_key_t){MT_HOLDER_NONE, false, 0};
        keys[n++] = (leak_key_t){MT_META_SEQ(b->meta),        hk.id,   b->site,    (uint32_t)i,
                                 (uint8_t)class_of(b->state), hk.kind, hk.chained, named};
    }
    sort_keys(keys, n);
    size_t ngroups = 0;
    for (size_t i = 0; i < n; i++)
        ngroups += i == 0 || !same_group(&keys[i - 1], &keys[i]);
    /* The groups, then their holders (each group's first block's). */
    r->groups_size = (ngroups != 0 ? ngroups : 1) * (sizeof(mt_leak_site_t) + sizeof(mt_holder_t));
    mt_leak_site_t *groups = r->groups = mt_pages_alloc_for_report(r->groups_size);
    mt_holder_t *holders = groups != NULL ? (mt_holder_t *)(void *)(groups + ngroups) : NULL;
    *ok = groups != NULL;
    size_t g = 0;
    for (size_t i = 0; *ok && i < n; i++) {
        const leak_key_t *k = &keys[i];
        if (i == 0 || !same_group(&keys[i - 1], k)) { /* its first block: the smallest seq */
            mt_leak_site_t *s = &groups[g++];
            s->site = k->site < mt_site_count() ? k->site : MT_SITE_NONE;
            s->leak_class = (mt_leak_class_t)k->leak_class;
            if (k->named)
                mt_holder_describe(h, k->block, s->leak_class, &holders[g - 1]);
            else
                memset(&holders[g - 1], 0, sizeof holders[g - 1]); /* MT_HOLDER_NONE */
            s->held = &holders[g - 1];
        }
        mt_leak_site_t *s = &groups[g - 1];
        s->bytes += reach->blocks[k->block].size;
        s->blocks++;
        if (k->seq != 0) /* (a system library's block has no number) */
            add_seq(s, k->seq, keep);
    }
    mt_pages_free(keys, keys_size != 0 ? keys_size : 1);
    if (!*ok)
        r->groups_size = 0;
    return g;
}

/* Whether any live block is one the report may list: made outside the system's libraries
 * (or system_leaks=1), or in a library other than the C runtime, which the scan may find
 * lost (system_block_lost_by_program). by_id counts the blocks of each site. */
static bool any_listed(const mt_leak_site_t *by_id, uint32_t nids)
{
    for (uint32_t i = 0; i < nids; i++)
        if (by_id[i].blocks != 0 &&
            (!mt_place_is_system(i) || mt_opt.system_leaks || !mt_place_in_runtime(i)))
            return true;
    return false;
}

/* Moves the groups the program still holds out of the list (leaks=lost), counted apart. */
static size_t keep_lost(mt_report_t *r, mt_leak_site_t *sites, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (still_held(sites[i].leak_class))
            add_apart(&r->held_apart, &sites[i]);
        else
            sites[kept++] = sites[i];
    }
    return kept;
}

void mt_report_build_leaks(mt_report_t *r, mt_leak_site_t *by_id, uint32_t nids, uint64_t since,
                           frame_pool_t *pool, uint64_t live[2])
{
    build_ctx_t c = {by_id, nids, 0, since, 0, 0};
    c.keep_seqs = mt_opt.report_seqs < MAX_SEQS ? (unsigned)mt_opt.report_seqs : MAX_SEQS;
    for (uint32_t i = 0; i < nids; i++) {
        by_id[i].site = i;
        by_id[i].leak_class = MT_LEAK_UNCLASSIFIED;
    }
    mt_table_foreach(count_block, &c);

    /* The leak scan, when there are leaks to classify (memtrack_report() lists live blocks
     * as they are). Its groups replace the sites' counts. */
    mt_leak_site_t *sites = by_id;
    size_t n = 0;
    uint64_t scanned[2] = {0, 0}; /* the program's blocks the scan found */
    /* (blocks went untracked, r->shortage: what holds what cannot be told) */
    if (r->when != MT_WHEN_NOW && r->shortage.blocks == 0 && any_listed(by_id, nids)) {
        mt_reach_t reach;
        mt_holders_t h;
        if (mt_reach_scan(&reach)) {
            bool ok = mt_holders_init(&h, &reach);
            if (ok)
                n = group_scanned(r, &h, since, c.keep_seqs, &ok, scanned);
            mt_holders_free(&h);
            r->classified = ok;
            r->threads_unread = reach.roots.threads_unread;
            if (ok)
                sites = r->groups;
            mt_reach_free(&reach);
        }
    }
    r->lost_only = r->classified && r->lost_only;
    if (!r->classified) /* keep the sites that hold blocks */
        for (uint32_t i = 0; i < nids; i++)
            if (by_id[i].blocks != 0)
                by_id[n++] = by_id[i];

    /* Merge the sites that print the same. */
    mt_heap_sort(sites, n, sizeof *sites, by_place);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && sites[m - 1].leak_class == sites[i].leak_class &&
            mt_site_same(sites[m - 1].site, sites[i].site) &&
            mt_holder_cmp(sites[m - 1].held, sites[i].held) == 0)
            merge_into(&sites[m - 1], &sites[i], c.keep_seqs);
        else
            sites[m++] = sites[i];
    }
    m = sort_out_sites(r, sites, m, pool);
    if (r->lost_only)
        m = keep_lost(r, sites, m);
    /* Sites known by address resolve to places too (file, line, function): those that
     * print the same (an inlined wrapper reached from several return addresses) are one. */
    mt_heap_sort(sites, m, sizeof *sites, by_printed);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k > 0 && cmp_printed(&sites[k - 1], &sites[i]) == 0)
            merge_into(&sites[k - 1], &sites[i], c.keep_seqs);
        else
            sites[k++] = sites[i];
    }
    m = k;
    mt_heap_sort(sites, m, sizeof *sites, by_size);

    r->sites = sites;
    r->nsites = m;
    for (size_t i = 0; i < m; i++) {
        r->leaked_bytes += sites[i].bytes;
        r->leaked_blocks += sites[i].blocks;
    }
    /* The scan took its own view of the table after the walk: threads still running may
     * have made blocks in between, which the list then holds. The floor is the larger. */
    bool scan_more = r->classified && scanned[1] > c.program_blocks;
    live[0] = scan_more ? scanned[0] : c.program_bytes;
    live[1] = scan_more ? scanned[1] : c.program_blocks;
}
