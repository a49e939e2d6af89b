/* holders.c - what keeps each leak alive, named for the report.
 *
 * The scan (api/reach.c) notes for each block the word that first reached it: in a root,
 * or in another block. Following those words back gives each block's chain, from the
 * block a root holds (its "top") down to it; the root is then named: a variable by the
 * debug information (base/data_symbols.c), a frame of the scanning thread by its function
 * and the line it is at, another thread's stack, registers or thread-local storage by the
 * thread, a registered root by where it was registered. An indirectly lost block's chain
 * starts at the lost block that leads its clique.
 *
 * Chains are followed once for all blocks, by memo: a list of a million nodes costs a
 * million steps, not a million squared.
 */
#include <string.h>

#include "base/data_symbols.h"
#include "records/place.h"
#include "report/holders.h"

#define UNKNOWN UINT32_MAX

typedef struct holder_root {
    bool known;
    uint8_t kind; /* mt_holder_kind_t */
    uint64_t id;
    uint32_t frame; /* STACK: the site of the scanning thread's frame, when named */
} holder_root_t;

static size_t bytes_for(size_t n)
{
    return n * (3 * sizeof(uint32_t) + sizeof(holder_root_t));
}

bool mt_holders_init(mt_holders_t *h, const mt_reach_t *reach)
{
    memset(h, 0, sizeof *h);
    h->reach = reach;
    h->thread = mt_thread();
    size_t n = reach->n;
    if (n == 0)
        return true;
    h->size = bytes_for(n);
    unsigned char *mem = mt_pages_alloc_for_report(h->size);
    if (mem == NULL)
        return false;
    h->roots = (holder_root_t *)(void *)mem; /* zero: not known yet */
    h->top = (uint32_t *)(void *)(mem + n * sizeof(holder_root_t));
    h->length = h->top + n;
    uint32_t *path = h->length + n;
    memset(h->top, 0xff, n * sizeof *h->top);
    const mt_reach_block_t *b = reach->blocks;
    for (size_t i = 0; i < n; i++) {
        if (h->top[i] != UNKNOWN)
            continue;
        /* Up to a block whose chain is known, or a top (a root's word reached it). */
        size_t k = i, depth = 0;
        while (h->top[k] == UNKNOWN && b[k].parent != MT_REACH_NO_BLOCK && depth < n) {
            path[depth++] = (uint32_t)k;
            k = b[k].parent;
        }
        if (h->top[k] == UNKNOWN) { /* a top (or, against every rule, a loop: cut there) */
            h->top[k] = (uint32_t)k;
            h->length[k] = 1;
        }
        while (depth-- > 0) {
            uint32_t j = path[depth];
            h->top[j] = h->top[b[j].parent];
            h->length[j] = h->length[b[j].parent] + 1;
        }
    }
    return true;
}

void mt_holders_free(mt_holders_t *h)
{
    if (h->roots != NULL)
        mt_pages_free(h->roots, h->size);
    memset(h, 0, sizeof *h);
}

/* The site of the scanning thread's frame holding addr, when it can be named: a function
 * of the program's with a file (not the C library's exit machinery); else MT_SITE_NONE. */
static uint32_t named_frame(const mt_roots_t *roots, uintptr_t addr)
{
    for (size_t f = 0; f < roots->nframes; f++) {
        const mt_stack_frame_t *fr = &roots->frames[f];
        if (addr < fr->start || addr >= fr->end)
            continue;
        uint32_t site = mt_site_pc(fr->pc, MT_KIND_NONE);
        mt_place_t place;
        return !mt_place_of(site, &place) && place.file != NULL ? site : MT_SITE_NONE;
    }
    return MT_SITE_NONE;
}

static const holder_root_t *root_of(mt_holders_t *h, uint32_t top)
{
    holder_root_t *r = &h->roots[top];
    if (r->known)
        return r;
    r->known = true;
    const mt_reach_block_t *b = &h->reach->blocks[top];
    if (b->state == MT_REACH_LOST || b->state == MT_REACH_UNREACHED) {
        r->kind = MT_HOLDER_LOST; /* an indirectly lost block's clique leader */
        return r;
    }
    const mt_root_t *root = mt_roots_find(&h->reach->roots, b->via);
    mt_data_symbol_t d;
    switch (root != NULL ? root->kind : MT_ROOT_DATA) {
    case MT_ROOT_DATA:
        if (root != NULL && mt_symbolize_data(b->via, &d)) {
            r->kind = d.external ? MT_HOLDER_GLOBAL : MT_HOLDER_STATIC;
            r->id = d.start;
        } else {
            r->kind = MT_HOLDER_DATA;
            r->id = root != NULL ? root->start : 0;
        }
        break;
    case MT_ROOT_TLS:
        r->kind = MT_HOLDER_THREAD_LOCAL;
        r->id = root->thread;
        break;
    case MT_ROOT_STACK:
        r->kind = MT_HOLDER_STACK;
        r->frame = root->thread == h->thread ? named_frame(&h->reach->roots, b->via) : MT_SITE_NONE;
        r->id = r->frame != MT_SITE_NONE ? r->frame : (UINT64_C(1) << 63 | root->thread);
        break;
    case MT_ROOT_REGISTERS:
        r->kind = MT_HOLDER_REGISTER;
        r->id = root->thread;
        break;
    case MT_ROOT_PROGRAM:
        r->kind = MT_HOLDER_ROOT;
        r->id = root->index;
        break;
    case MT_ROOT_MAPPED:
        r->kind = MT_HOLDER_MAPPED;
        r->id = 0; /* one group a site, whichever mapping */
        break;
    }
    return r;
}

mt_holder_key_t mt_holder_key(mt_holders_t *h, uint32_t i)
{
    mt_holder_key_t key = {MT_HOLDER_NONE, false, 0};
    if (h->reach->blocks[i].state == MT_REACH_LOST)
        return key; /* nothing holds it */
    const holder_root_t *r = root_of(h, h->top[i]);
    key.kind = r->kind;
    key.id = r->kind == MT_HOLDER_LOST ? 0 : r->id; /* one group a site: its chains differ */
    key.chained = h->top[i] != i;
    return key;
}

/* The blocks from the top of i's chain down to i, by sequence number: all of them, or when
 * there are more than the holder keeps, the first few on the root's side and the last. */
static void describe_chain(mt_holders_t *h, uint32_t i, mt_holder_t *out)
{
    const mt_reach_block_t *b = h->reach->blocks;
    uint64_t length = h->length[i];
    if (h->top[i] == i)
        return; /* held directly */
    enum { FIRST = 3, LAST = MT_HOLDER_CHAIN_MAX - FIRST };
    out->chain_length = length;
    out->nchain = length < MT_HOLDER_CHAIN_MAX ? (unsigned)length : MT_HOLDER_CHAIN_MAX;
    /* Walking up from i gives the chain backwards: position `at` counts from the top, 1. */
    uint32_t k = i;
    for (uint64_t at = length; at >= 1; at--) {
        uint64_t seq = MT_META_SEQ(b[k].meta);
        if (length <= MT_HOLDER_CHAIN_MAX || at <= FIRST)
            out->chain[at - 1] = seq;
        else if (at > length - LAST)
            out->chain[FIRST + (at - (length - LAST + 1))] = seq;
        if (b[k].parent == MT_REACH_NO_BLOCK)
            break;
        k = b[k].parent;
    }
}

void mt_holder_describe(mt_holders_t *h, uint32_t i, mt_leak_class_t leak_class, mt_holder_t *out)
{
    memset(out, 0, sizeof *out);
    const mt_reach_block_t *b = &h->reach->blocks[i];
    if (leak_class == MT_LEAK_LOST || leak_class == MT_LEAK_UNCLASSIFIED)
        return;
    uint32_t top = h->top[i];
    const holder_root_t *r = root_of(h, top);
    const mt_reach_block_t *t = &h->reach->blocks[top];
    const mt_root_t *root = mt_roots_find(&h->reach->roots, t->via);
    out->kind = (mt_holder_kind_t)r->kind;
    out->thread = root != NULL ? root->thread : 0;
    mt_data_symbol_t d;
    mt_place_t place;
    switch (out->kind) {
    case MT_HOLDER_GLOBAL:
    case MT_HOLDER_STATIC:
        if (mt_symbolize_data(t->via, &d)) {
            out->name = d.name;
            out->file = d.file;
            out->line = d.line;
            out->func = d.func;
        }
        out->thread = 0;
        break;
    case MT_HOLDER_DATA:
        (void)mt_symbolize_data(t->via, &d); /* no variable there, but its module */
        out->module = d.module;
        out->thread = 0;
        break;
    case MT_HOLDER_STACK:
        if (r->frame != MT_SITE_NONE) {
            (void)mt_place_of(r->frame, &place);
            out->func = place.func;
            out->file = place.file;
            out->line = place.line;
        }
        break;
    case MT_HOLDER_ROOT:
        (void)mt_place_of(mt_reach_registered_site(root->index), &place);
        out->file = place.file;
        out->line = place.line;
        out->func = place.func;
        out->thread = 0;
        break;
    default: break;
    }
    /* The chain: for an indirectly lost block, from the lost block leading its clique. */
    describe_chain(h, i, out);
    if (leak_class == MT_LEAK_POSSIBLE && b->offset != 0)
        out->offset = b->offset;
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

int mt_holder_cmp(const mt_holder_t *a, const mt_holder_t *b)
{
    static const mt_holder_t none = {MT_HOLDER_NONE};
    a = a != NULL ? a : &none;
    b = b != NULL ? b : &none;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int c = cmp_str(a->name, b->name);
    if (c == 0)
        c = cmp_str(a->func, b->func);
    if (c == 0)
        c = cmp_str(a->file, b->file);
    if (c == 0 && a->line != b->line)
        c = a->line < b->line ? -1 : 1;
    if (c == 0)
        c = cmp_str(a->module, b->module);
    if (c == 0 && a->thread != b->thread)
        c = a->thread < b->thread ? -1 : 1;
    if (c == 0 && (a->nchain != 0) != (b->nchain != 0))
        c = a->nchain != 0 ? 1 : -1;
    return c;
}
