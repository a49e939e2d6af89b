/* wrappers.c - leaks made inside allocation wrappers, shown at the wrappers' callers.
 *
 * Real programs funnel their allocations through one function (xmalloc, a library's
 * l_alloc or yaml_malloc, a hook table's entry): every leak would be reported at the
 * wrapper's one line, which tells nobody what to fix. With each site's stack known, a leak
 * made inside a wrapper is shown at the wrapper's caller instead, its stack one frame
 * shorter, and the report names the wrapper. So is a block made inside the system's
 * headers (a C++ container growing): it is shown at the program's line that grew it.
 *
 * A function is a wrapper when option alloc_fn names it (as Valgrind's --alloc-fn), or,
 * with option wrappers (the default), by this rule: blocks made at one place in it were
 * reached from at least WRAPPER_CALLERS different call sites, that place is the only one
 * in the function where blocks were ever made, and its code is at most WRAPPER_MAX_BYTES
 * long: a function that small with one allocation does little but allocate. A function
 * that also grows an array, or a bigger one (a parser's node maker that also links the
 * node in), keeps its own line, with its stack below it. A wrapper the compiler inlined is
 * one too: its place's first frame is the function it was inlined into, and its code the
 * inlined copy's (symbolize.c).
 */
#define _GNU_SOURCE
#include <string.h>

#include "base/options.h"
#include "base/symbolize.h"
#include "records/place.h"
#include "records/site.h"
#include "report/wrappers.h"

#define WRAPPER_CALLERS 3u
#define WRAPPER_MAX_BYTES 256u
#define CANDIDATES_MAX 256u

/* '*' matches any run of characters, everything else itself. */
static bool glob_matches(const char *pattern, size_t plen, const char *name)
{
    size_t p = 0, star = (size_t)-1, resume = 0;
    const char *n = name;
    while (*n != '\0') {
        if (p < plen && pattern[p] == '*') {
            star = p++;
            resume = (size_t)(n - name);
        } else if (p < plen && pattern[p] == *n) {
            p++;
            n++;
        } else if (star != (size_t)-1) {
            p = star + 1;
            n = name + ++resume;
        } else {
            return false;
        }
    }
    while (p < plen && pattern[p] == '*')
        p++;
    return p == plen;
}

bool mt_alloc_fn_matches(const char *name)
{
    const char *list = mt_opt.alloc_fn;
    if (name == NULL || list == NULL || list[0] == '\0')
        return false;
    while (*list != '\0') { /* entries are kept separated by spaces (options.c) */
        size_t len = strcspn(list, " ");
        if (len > 0 && glob_matches(list, len, name))
            return true;
        list += len;
        while (*list == ' ')
            list++;
    }
    return false;
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Two places are one wrapper's when they name the same function at the same line. */
static bool same_place(const mt_place_t *a, const mt_place_t *b)
{
    return a->line == b->line && same_str(a->file, b->file) && same_str(a->func, b->func) &&
           (a->file != NULL || same_str(a->module, b->module));
}

static bool same_frame(const mt_frame_t *a, const mt_frame_t *b)
{
    if (a->file != NULL || b->file != NULL)
        return a->line == b->line && same_str(a->file, b->file);
    return a->pc == b->pc;
}

static void name_wrapper(mt_report_t *r, const mt_place_t *p, bool detected)
{
    for (size_t i = 0; i < r->nwrappers; i++)
        if (same_str(r->wrappers[i].fn.func, p->func))
            return;
    if (r->nwrappers == MT_WRAPPERS_MAX || r->wrappers == NULL)
        return;
    mt_wrapper_t *w = &r->wrappers[r->nwrappers++];
    memset(w, 0, sizeof *w);
    w->fn.func = p->func;
    w->fn.file = p->file;
    w->fn.line = p->line;
    w->fn.module = p->file == NULL ? p->module : NULL;
    w->fn.pc = p->pc;
    w->detected = detected;
}

/* The place becomes its first caller (or the function it was inlined into); the caller's
 * own callers become its stack. */
static void move_to_caller(mt_place_t *p)
{
    mt_place_at_frame(p, &p->stack.frames[0]);
    p->stack.frames++;
    p->stack.nframes--;
}

/* Code from the system's headers (the C++ standard library's containers, inlined or
 * instantiated in the program): the line to fix is the program's own that called it. */
static bool in_system_header(const char *file)
{
    return file != NULL &&
           (strncmp(file, "/usr/include/", 13) == 0 || strncmp(file, "/usr/lib/", 9) == 0);
}

static void skip_named(mt_report_t *r, mt_place_t *p)
{
    while (p->stack.nframes > 0 && mt_alloc_fn_matches(p->func)) {
        name_wrapper(r, p, false);
        move_to_caller(p);
    }
    while (p->stack.nframes > 0 && in_system_header(p->file)) /* said in the README */
        move_to_caller(p);
}

typedef struct candidate {
    const mt_leak_site_t *first; /* a site at the place */
    const mt_frame_t *callers[WRAPPER_CALLERS];
    unsigned ncallers;
    bool wrapper;
} candidate_t;

static bool makes_blocks(mt_kind_t kind)
{
    return kind <= MT_KIND_NEW_ARRAY;
}

/* True when no other place in the function of site id (code [start, start + size)) made a
 * block: by file and function for a macro's site, by address for one known by address. */
static bool only_allocation(uint32_t id, uintptr_t start, size_t size)
{
    const mt_site_t *me = mt_site_get(id);
    uint32_t n = mt_site_count();
    for (uint32_t i = 1; i < n; i++) {
        const mt_site_t *s = mt_site_get(i);
        if (!makes_blocks(s->kind))
            continue;
        if (me->file != NULL ? s->file != NULL && s->line != me->line &&
                                   same_str(s->file, me->file) && same_str(s->func, me->func)
                             : s->file == NULL && s->pc != me->pc && (uintptr_t)s->pc > start &&
                                   (uintptr_t)s->pc <= start + size)
            return false;
    }
    return true;
}

/* How many different calls reached the place of site id over the whole run (every block
 * made there, freed or not, has its site with its stack), up to WRAPPER_CALLERS. */
static unsigned callers_seen(uint32_t id)
{
    void *seen[WRAPPER_CALLERS];
    unsigned n = 0;
    uint32_t place = mt_site_place(id), count = mt_site_count();
    for (uint32_t i = 1; i < count && n < WRAPPER_CALLERS; i++) {
        if (mt_site_place(i) != place || mt_site_get(i)->stack == 0)
            continue;
        void *caller = mt_place_caller_pc(i);
        bool known = caller == NULL;
        for (unsigned j = 0; j < n && !known; j++)
            known = seen[j] == caller;
        if (!known)
            seen[n++] = caller;
    }
    return n;
}

/* The rule: places reached from WRAPPER_CALLERS callers or more (among the leaks, or over
 * the whole run), the only allocation of a small function. */
static size_t find_wrappers(mt_leak_site_t *sites, size_t n, candidate_t *c)
{
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        const mt_place_t *p = &sites[i].where;
        if (p->stack.nframes == 0 || p->func == NULL)
            continue;
        size_t k = 0;
        while (k < nc && !same_place(&c[k].first->where, p))
            k++;
        if (k == nc) {
            if (nc == CANDIDATES_MAX)
                continue;
            memset(&c[nc], 0, sizeof c[nc]);
            c[nc++].first = &sites[i];
        }
        candidate_t *cand = &c[k];
        if (cand->ncallers == WRAPPER_CALLERS)
            continue;
        bool known = false;
        for (unsigned j = 0; j < cand->ncallers && !known; j++)
            known = same_frame(cand->callers[j], &p->stack.frames[0]);
        if (!known)
            cand->callers[cand->ncallers++] = &p->stack.frames[0];
    }
    for (size_t k = 0; k < nc; k++) {
        if (c[k].ncallers < WRAPPER_CALLERS && callers_seen(c[k].first->site) < WRAPPER_CALLERS)
            continue;
        mt_symbol_t sym;
        void *pc = mt_place_function_pc(c[k].first->site);
        /* An inlined function's code is its copy at this place: its callers' code, where
         * they inlined it, is theirs. */
        c[k].wrapper = pc != NULL && mt_symbolize(pc, &sym) && sym.code_size != 0 &&
                       sym.code_size <= WRAPPER_MAX_BYTES &&
                       only_allocation(c[k].first->site, sym.code_start, sym.code_size);
    }
    return nc;
}

void mt_wrappers_apply(mt_report_t *r, mt_leak_site_t *sites, size_t n)
{
    for (size_t i = 0; i < n; i++)
        skip_named(r, &sites[i].where);
    if (!mt_opt.wrappers)
        return;
    candidate_t c[CANDIDATES_MAX];
    size_t nc = find_wrappers(sites, n, c);
    for (size_t k = 0; k < nc; k++) {
        if (!c[k].wrapper)
            continue;
        mt_place_t at = c[k].first->where;
        name_wrapper(r, &at, true);
        for (size_t i = 0; i < n; i++) {
            mt_place_t *p = &sites[i].where;
            if (p->stack.nframes > 0 && same_place(p, &at)) {
                move_to_caller(p);
                skip_named(r, p);
            }
        }
    }
}
