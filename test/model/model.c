/* model.c - the reference model (see model.h).
 *
 * What the model keeps: up to SLOTS live blocks (address, size, alignment, sequence
 * number, site, the seed of the bytes written into it, which guard bytes were changed and
 * whether that was reported), and per shard a FIFO of the freed blocks memtrack must still
 * hold in quarantine, with the bytes written into each after free. From that it predicts,
 * op by op, every error memtrack must report and every block it must evict; memtrack's
 * reports come back through mt_error_observer. Live blocks' contents are checked at every
 * free and realloc: nothing the program holds may change.
 */
#define _GNU_SOURCE
#include "model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "checks/guard.h"
#include "checks/quarantine.h"
#include "records/site.h"

#define SLOTS 48
#define RING 16384  /* freed blocks a shard's FIFO can hold in the model */
#define GUARD 16    /* the model runs with memtrack's default guard */
#define WAF_SPAN 64 /* writes after free land in a block's first 64 bytes */
#define MAX_ERRORS 65536

static const char model_file[] = "model.c";
static const char model_func[] = "model";

/* One line per operation kind: each is its own site. */
enum {
    L_MALLOC = 1,
    L_CALLOC,
    L_ALIGNED,
    L_REALLOC,
    L_FREE,
    L_DOUBLE_FREE,
    L_DOUBLE_REALLOC,
    L_BAD_FREE,
    L_BAD_REALLOC,
    L_CHECK,
    L_HUGE
};

typedef struct block {
    unsigned char *p;
    size_t size;
    unsigned shift; /* log2 of its alignment */
    uint64_t seq;
    uint32_t site, free_site;
    uint32_t content; /* seed of what the program wrote (0: calloc zeros untouched) */
    uint32_t over;    /* bit i: the byte i after the end was changed */
    uint32_t under;   /* bit i: the byte i + 1 before the start was changed */
    uint64_t waf;     /* freed: bit i: byte i was written after free */
    int reported;     /* its damage (guards while live, the fill once freed) was reported */
} block_t;

typedef struct fifo {
    block_t *ring;
    size_t head, count, bytes;
} fifo_t;

static block_t live[SLOTS];
static fifo_t freed[MT_SHARD_COUNT];
static size_t budget;
static uint64_t next_seq = 1;
static unsigned my_thread;
static size_t failed_allocations, errors_expected;
static unsigned char *wild_page, *plain_page;
static char static_area[256];
static unsigned long steps, ops[16];

/* A site known only by the caller's return address (the process's free() and realloc(),
 * which untracked code calls): any site of that kind known by address matches. */
#define SITE_ANY_FREE UINT32_MAX
#define SITE_ANY_REALLOC (UINT32_MAX - 1)

static mt_error_t expected[MAX_ERRORS], actual[MAX_ERRORS];
static size_t nexpected, nactual, overflow;

static void observe(const mt_error_t *e)
{
    if (nactual < MAX_ERRORS)
        actual[nactual++] = *e;
    else
        overflow++;
}

/* A sanitizer build leaves the process's free() and realloc() to the sanitizer: only
 * tracked entry points then. */
#ifdef MT_SANITIZER_ALLOCATOR
#define UNTRACKED_DOOR 0
#else
#define UNTRACKED_DOOR 1
#endif

static uint32_t site(int line, mt_kind_t kind)
{
    return mt_site_id(model_file, line, model_func, kind, NULL);
}

static mt_error_t *expect(mt_error_kind_t kind, uint32_t found)
{
    mt_error_t *e = &expected[nexpected < MAX_ERRORS ? nexpected++ : MAX_ERRORS - 1];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->found_site = found;
    errors_expected++;
    return e;
}

static void name_block(mt_error_t *e, const block_t *b)
{
    e->addr = (uintptr_t)b->p;
    e->size = b->size;
    e->seq = b->seq;
    e->thread = my_thread;
    e->alloc_site = b->site;
}

/* ---- input ------------------------------------------------------------------------------ */

static const uint8_t **in_data;
static size_t *in_len;

static unsigned take(unsigned bound)
{
    unsigned v = 0;
    for (int i = 0; i < 3 && *in_len > 0; i++) {
        v = v << 8 | **in_data;
        (*in_data)++;
        (*in_len)--;
    }
    return bound != 0 ? v % bound : v;
}

/* ---- blocks ------------------------------------------------------------------------------- */

static unsigned char content_byte(uint32_t seed, size_t i)
{
    return (unsigned char)((seed * 2654435761u + (uint32_t)i * 97u) >> 13);
}

static void write_content(block_t *b, uint32_t seed)
{
    b->content = seed;
    for (size_t i = 0; i < b->size; i++)
        b->p[i] = content_byte(seed, i);
}

static int check_content(const block_t *b, const char *when)
{
    for (size_t i = 0; i < b->size; i++) {
        unsigned char want = b->content != 0 ? content_byte(b->content, i) : 0;
        if (b->p[i] != want) {
            fprintf(stderr, "model: block #%llu (%zu bytes) changed at byte %zu %s\n",
                    (unsigned long long)b->seq, b->size, i, when);
            return 1;
        }
    }
    return 0;
}

static unsigned shard_index(const void *p)
{
    return (unsigned)(mt_shard_of((uintptr_t)p) - mt_shards);
}

static size_t cost_of(const block_t *b)
{
    return mt_quarantine_cost(b->size, b->shift);
}

/* Guard damage a free, realloc or check must report now. */
static void expect_guard_damage(block_t *b, uint32_t found)
{
    if (b->reported || (b->over | b->under) == 0)
        return;
    if (b->under != 0) {
        mt_error_t *e = expect(MT_ERROR_UNDERRUN, found);
        name_block(e, b);
        e->changed = (size_t)__builtin_popcount(b->under);
        e->extent = 32u - (size_t)__builtin_clz(b->under);
    }
    if (b->over != 0) {
        mt_error_t *e = expect(MT_ERROR_OVERRUN, found);
        name_block(e, b);
        e->changed = (size_t)__builtin_popcount(b->over);
        e->extent = 32u - (size_t)__builtin_clz(b->over);
    }
}

static void expect_waf(const block_t *b, uint32_t found)
{
    mt_error_t *e = expect(MT_ERROR_WRITE_AFTER_FREE, found);
    name_block(e, b);
    e->free_site = b->free_site;
    e->changed = (size_t)__builtin_popcountll(b->waf);
    e->offset = __builtin_ctzll(b->waf);
    e->extent = 64u - (size_t)__builtin_clzll(b->waf);
}

/* A block leaves the live set at `found`: into its shard's quarantine, which sheds its
 * oldest blocks while over budget (at most MT_EVICT_REPORTS reporting ones per free). */
static void model_release(block_t *b, uint32_t found)
{
    block_t q = *b;
    q.free_site = found;
    q.waf = 0;
    q.reported = 0;
    memset(b, 0, sizeof *b);
    if (cost_of(&q) > budget)
        return; /* released at once */
    fifo_t *f = &freed[shard_index(q.p)];
    if (f->count == RING) {
        fprintf(stderr, "model: ring full\n");
        exit(2);
    }
    f->ring[(f->head + f->count++) % RING] = q;
    f->bytes += cost_of(&q);
    size_t reports = 0;
    while (f->bytes > budget && reports < MT_EVICT_REPORTS && f->count > 1) {
        block_t *old = &f->ring[f->head];
        if (old->waf != 0 && !old->reported) {
            expect_waf(old, found);
            reports++;
        }
        f->bytes -= cost_of(old);
        f->head = (f->head + 1) % RING;
        f->count--;
    }
}

static int empty_slot(void)
{
    int start = (int)take(SLOTS);
    for (int i = 0; i < SLOTS; i++)
        if (live[(start + i) % SLOTS].p == NULL)
            return (start + i) % SLOTS;
    return -1;
}

static block_t *some_live(void)
{
    int start = (int)take(SLOTS);
    for (int i = 0; i < SLOTS; i++)
        if (live[(start + i) % SLOTS].p != NULL)
            return &live[(start + i) % SLOTS];
    return NULL;
}

static block_t *some_freed(void)
{
    unsigned start = take(MT_SHARD_COUNT);
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        fifo_t *f = &freed[(start + i) % MT_SHARD_COUNT];
        if (f->count != 0)
            return &f->ring[(f->head + take((unsigned)f->count)) % RING];
    }
    return NULL;
}

static size_t some_size(void)
{
    unsigned r = take(100);
    if (r < 70)
        return take(64);
    if (r < 97)
        return take(700);
    return 2000 + take(4000);
}

/* ---- operations ------------------------------------------------------------------------ */

static int op_alloc(void)
{
    int slot = empty_slot();
    if (slot < 0)
        return 0;
    block_t *b = &live[slot];
    unsigned how = take(3);
    size_t size = some_size();
    void *p;
    b->shift = 4;
    if (how == 0) {
        p = memtrack_malloc_at(size, model_file, L_MALLOC, model_func);
        b->site = site(L_MALLOC, MT_KIND_MALLOC);
    } else if (how == 1) {
        p = memtrack_calloc_at(1, size, model_file, L_CALLOC, model_func);
        b->site = site(L_CALLOC, MT_KIND_CALLOC);
    } else {
        b->shift = 5 + take(3);
        p = memtrack_aligned_alloc_at((size_t)1 << b->shift, size, model_file, L_ALIGNED,
                                      model_func);
        b->site = site(L_ALIGNED, MT_KIND_ALIGNED_ALLOC);
    }
    if (p == NULL || (uintptr_t)p % ((size_t)1 << b->shift) != 0) {
        fprintf(stderr, "model: allocation of %zu bytes failed or misaligned\n", size);
        return 1;
    }
    b->p = p;
    b->size = size;
    b->seq = next_seq++;
    for (size_t i = 0; i < size; i++) {
        unsigned char want = how == 1 ? 0 : MT_ALLOC_FILL_BYTE;
        if (b->p[i] != want) {
            fprintf(stderr, "model: new block byte %zu is %#x\n", i, b->p[i]);
            return 1;
        }
    }
    if (how == 1 && take(2) == 0)
        b->content = 0; /* leave the zeros */
    else
        write_content(b, 1 + take(0));
    return 0;
}

static int op_free(void)
{
    block_t *b = some_live();
    if (b == NULL)
        return op_alloc();
    if (check_content(b, "before free"))
        return 1;
    /* One free in four through the process's free(), as a library would free it. */
    bool untracked = take(4) == 0 && UNTRACKED_DOOR;
    uint32_t found = untracked ? SITE_ANY_FREE : site(L_FREE, MT_KIND_FREE);
    expect_guard_damage(b, found);
    void *p = b->p;
    model_release(b, found);
    if (untracked)
        free(p);
    else
        memtrack_free_at(p, model_file, L_FREE, model_func);
    return 0;
}

static int op_realloc(void)
{
    block_t *b = some_live();
    if (b == NULL)
        return op_alloc();
    if (check_content(b, "before realloc"))
        return 1;
    size_t size = take(8) == 0 ? 0 : some_size();
    uint32_t found = site(L_REALLOC, MT_KIND_REALLOC);
    block_t old = *b;
    void *p = memtrack_realloc_at(b->p, size, model_file, L_REALLOC, model_func);
    expect_guard_damage(b, found);
    model_release(b, found); /* clears *b */
    if (size == 0) {
        if (p != NULL) {
            fprintf(stderr, "model: realloc(p, 0) returned a block\n");
            return 1;
        }
        return 0;
    }
    if (p == NULL) {
        fprintf(stderr, "model: realloc to %zu bytes failed\n", size);
        return 1;
    }
    b->p = p;
    b->size = size;
    b->shift = 4;
    b->seq = next_seq++;
    b->site = found;
    size_t kept = old.size < size ? old.size : size;
    for (size_t i = 0; i < size; i++) {
        unsigned char want = i >= kept          ? MT_ALLOC_FILL_BYTE
                             : old.content != 0 ? content_byte(old.content, i)
                                                : 0;
        if (b->p[i] != want) {
            fprintf(stderr, "model: realloc'd block byte %zu is %#x, not %#x\n", i, b->p[i], want);
            return 1;
        }
    }
    write_content(b, 1 + take(0));
    return 0;
}

static unsigned char not_byte(unsigned char avoid)
{
    unsigned char v = (unsigned char)take(256);
    return v == avoid ? (unsigned char)(v + 1) : v;
}

static int op_overrun(int before)
{
    block_t *b = some_live();
    if (b == NULL)
        return op_alloc();
    unsigned i = take(GUARD);
    if (before) {
        b->p[-(ptrdiff_t)i - 1] = not_byte(MT_GUARD_BYTE);
        b->under |= 1u << i;
    } else {
        b->p[b->size + i] = not_byte(MT_GUARD_BYTE);
        b->over |= 1u << i;
    }
    return 0;
}

static int op_write_after_free(void)
{
    block_t *b = some_freed();
    if (b == NULL || b->size == 0)
        return op_free();
    unsigned i = take((unsigned)(b->size < WAF_SPAN ? b->size : WAF_SPAN));
    b->p[i] = not_byte(MT_FREE_FILL_BYTE);
    b->waf |= UINT64_C(1) << i;
    return 0;
}

static int op_double_free(int by_realloc)
{
    block_t *b = some_freed();
    if (b == NULL)
        return op_free();
    mt_error_t *e;
    bool untracked = take(4) == 0 && UNTRACKED_DOOR; /* the process's free(), realloc() */
    if (by_realloc) {
        e = expect(MT_ERROR_DOUBLE_FREE,
                   untracked ? SITE_ANY_REALLOC : site(L_DOUBLE_REALLOC, MT_KIND_REALLOC));
        errno = 0;
        void *p = untracked ? realloc(b->p, 1 + take(100))
                            : memtrack_realloc_at(b->p, 1 + take(100), model_file, L_DOUBLE_REALLOC,
                                                  model_func);
        if (p != NULL || errno != EINVAL) {
            fprintf(stderr, "model: realloc of a freed block gave %p, errno %d\n", p, errno);
            return 1;
        }
    } else {
        e = expect(MT_ERROR_DOUBLE_FREE,
                   untracked ? SITE_ANY_FREE : site(L_DOUBLE_FREE, MT_KIND_FREE));
        if (untracked)
            free(b->p);
        else
            memtrack_free_at(b->p, model_file, L_DOUBLE_FREE, model_func);
    }
    name_block(e, b);
    e->free_site = b->free_site;
    e->pointer = (uintptr_t)b->p;
    return 0;
}

/* A pointer into block b (live or freed), anywhere from its front guard to the end of its
 * back guard, but not its start. */
static unsigned char *inside(const block_t *b, int64_t *offset)
{
    size_t front = mt_block_front(b->shift);
    size_t span = front + b->size + GUARD;
    size_t at;
    do
        at = take((unsigned)span);
    while (at == front && span > 1);
    *offset = (int64_t)at - (int64_t)front; /* negative in the front guard */
    return b->p - front + at;
}

static int op_bad_pointer(int by_realloc)
{
    int line = by_realloc ? L_BAD_REALLOC : L_BAD_FREE;
    mt_error_t *e =
        expect(MT_ERROR_INVALID_FREE, site(line, by_realloc ? MT_KIND_REALLOC : MT_KIND_FREE));
    volatile char stack_area[64];
    unsigned char *p;
    block_t *b;
    switch (take(6)) {
    case 0:
        if ((b = some_live()) != NULL) {
            p = inside(b, &e->offset);
            e->what = MT_POINTER_INSIDE_LIVE;
            name_block(e, b);
            break;
        }
        /* fall through */
    case 1:
        if ((b = some_freed()) != NULL) {
            p = inside(b, &e->offset);
            e->what = MT_POINTER_INSIDE_FREED;
            name_block(e, b);
            e->free_site = b->free_site;
            break;
        }
        /* fall through */
    case 2:
        p = (unsigned char *)&stack_area[take(64)];
        e->what = MT_POINTER_STACK;
        break;
    case 3:
        p = (unsigned char *)&static_area[take(sizeof static_area)];
        e->what = MT_POINTER_STATIC;
        break;
    case 4:
        p = wild_page + take(4096);
        e->what = MT_POINTER_WILD;
        break;
    default:
        p = plain_page + take(4096);
        e->what = MT_POINTER_NOT_HEAP;
        break;
    }
    if (e->what != MT_POINTER_INSIDE_LIVE && e->what != MT_POINTER_INSIDE_FREED)
        e->addr = (uintptr_t)p;
    e->pointer = (uintptr_t)p;
    if (by_realloc) {
        errno = 0;
        void *r = memtrack_realloc_at(p, 10, model_file, line, model_func);
        if (r != NULL || errno != EINVAL) {
            fprintf(stderr, "model: realloc of a bad pointer gave %p, errno %d\n", r, errno);
            return 1;
        }
    } else {
        memtrack_free_at(p, model_file, line, model_func);
    }
    return 0;
}

static int op_check(void)
{
    uint32_t found = site(L_CHECK, MT_KIND_CHECK);
    int damaged = 0;
    for (int i = 0; i < SLOTS; i++) {
        block_t *b = &live[i];
        if (b->p == NULL || (b->over | b->under) == 0)
            continue;
        damaged++;
        expect_guard_damage(b, found);
        b->reported = 1;
    }
    for (unsigned s = 0; s < MT_SHARD_COUNT; s++) {
        fifo_t *f = &freed[s];
        for (size_t k = 0; k < f->count; k++) {
            block_t *b = &f->ring[(f->head + k) % RING];
            if (b->waf == 0)
                continue;
            damaged++;
            if (!b->reported)
                expect_waf(b, found);
            b->reported = 1;
        }
    }
    int got = memtrack_check_at(model_file, L_CHECK, model_func);
    if (got != damaged) {
        fprintf(stderr, "model: memtrack_check() returned %d, expected %d\n", got, damaged);
        return 1;
    }
    return 0;
}

static int op_huge(void)
{
    errno = 0;
    void *p = memtrack_malloc_at(SIZE_MAX - take(64), model_file, L_HUGE, model_func);
    failed_allocations++;
    if (p != NULL || errno != ENOMEM) {
        fprintf(stderr, "model: an impossible size gave %p, errno %d\n", p, errno);
        return 1;
    }
    return 0;
}

/* ---- comparing what was reported with what was expected ------------------------------- */

/* x is expected, y reported. */
static bool same_site(uint32_t x, uint32_t y)
{
    if (x == SITE_ANY_FREE || x == SITE_ANY_REALLOC) {
        const mt_site_t *s = mt_site_get(y);
        return s->file == NULL && s->pc != NULL &&
               s->kind == (x == SITE_ANY_FREE ? MT_KIND_FREE : MT_KIND_REALLOC);
    }
    return x == y || x == mt_site_place(y); /* the place, whatever stack led to it */
}

static bool same_error(const mt_error_t *x, const mt_error_t *y)
{
    if (x->kind != y->kind || !same_site(x->found_site, y->found_site))
        return false;
    bool block = x->addr == y->addr && x->size == y->size && x->seq == y->seq &&
                 x->thread == y->thread && same_site(x->alloc_site, y->alloc_site);
    switch (x->kind) {
    case MT_ERROR_OVERRUN:
    case MT_ERROR_UNDERRUN: return block && x->changed == y->changed && x->extent == y->extent;
    case MT_ERROR_DOUBLE_FREE:
        return block && same_site(x->free_site, y->free_site) && x->pointer == y->pointer;
    case MT_ERROR_WRITE_AFTER_FREE:
        return block && same_site(x->free_site, y->free_site) && x->changed == y->changed &&
               x->offset == y->offset && x->extent == y->extent;
    case MT_ERROR_INVALID_FREE:
        if (x->what != y->what || x->pointer != y->pointer || x->addr != y->addr)
            return false;
        if (x->what == MT_POINTER_INSIDE_LIVE || x->what == MT_POINTER_INSIDE_FREED)
            return block && x->offset == y->offset && same_site(x->free_site, y->free_site);
        return true;
    default: return false;
    }
}

static void print_error(const char *what, const mt_error_t *e)
{
    fprintf(stderr,
            "  %s: %s block %#lx size %zu seq %llu alloc %u free %u found %u changed %zu "
            "extent %zu offset %lld what %u pointer %#lx\n",
            what, mt_error_names[e->kind], (unsigned long)e->addr, e->size,
            (unsigned long long)e->seq, e->alloc_site, e->free_site, e->found_site, e->changed,
            e->extent, (long long)e->offset, e->what, (unsigned long)e->pointer);
}

static int compare(const char *op)
{
    static bool matched[MAX_ERRORS];
    int bad = overflow != 0 || nactual != nexpected;
    memset(matched, 0, nactual * sizeof matched[0]);
    for (size_t i = 0; i < nexpected && !bad; i++) {
        size_t j = 0;
        while (j < nactual && (matched[j] || !same_error(&expected[i], &actual[j])))
            j++;
        if (j == nactual)
            bad = 1;
        else
            matched[j] = true;
    }
    if (bad) {
        fprintf(stderr, "model: step %lu (%s): memtrack reported %zu errors, the model %zu\n",
                steps, op, nactual, nexpected);
        for (size_t i = 0; i < nexpected; i++)
            print_error("expected", &expected[i]);
        for (size_t i = 0; i < nactual; i++)
            print_error("reported", &actual[i]);
    }
    nexpected = nactual = overflow = 0;
    return bad;
}

static int check_stats(void)
{
    memtrack_stats_t st;
    size_t blocks = 0;
    memtrack_stats(&st);
    for (int i = 0; i < SLOTS; i++)
        blocks += live[i].p != NULL;
    if (st.current_blocks != blocks || st.errors != errors_expected ||
        st.failed != failed_allocations || st.total_blocks != next_seq - 1) {
        fprintf(stderr,
                "model: step %lu: stats say %zu live, %zu errors, %zu failed, %zu made; "
                "the model %zu, %zu, %zu, %llu\n",
                steps, st.current_blocks, st.errors, st.failed, st.total_blocks, blocks,
                errors_expected, failed_allocations, (unsigned long long)(next_seq - 1));
        return 1;
    }
    return 0;
}

/* ---- the driver's interface -------------------------------------------------------------- */

void model_init(size_t quarantine)
{
    char value[32];
    snprintf(value, sizeof value, "%zu", quarantine);
    memtrack_set_option("quiet", "1");
    memtrack_set_option("quarantine", value);
    memtrack_set_option("max_messages", "1000000000");
    /* The model predicts the bytes of blocks with guard bytes; page-guarded blocks fault
     * instead, and have their own tests (test/fault/page_guard_*). */
    memtrack_set_option("page_guard_rate", "0");
    budget = quarantine;
    mt_error_observer = observe;
    my_thread = mt_thread();
    for (unsigned s = 0; s < MT_SHARD_COUNT; s++)
        freed[s].ring = calloc(RING, sizeof(block_t));
    /* Two pages: a plain one, and one that cannot be read (kept reserved, so no later
     * mapping can take its place). */
    plain_page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    wild_page = plain_page + 4096;
    mprotect(wild_page, 4096, PROT_NONE);
}

static const char *const op_names[] = {"alloc",       "free",
                                       "realloc",     "overrun",
                                       "underrun",    "write after free",
                                       "double free", "realloc of freed",
                                       "bad free",    "bad realloc",
                                       "check",       "huge size"};

int model_step(const uint8_t **data, size_t *len)
{
    in_data = data;
    in_len = len;
    unsigned op = take(100);
    int kind, bad;
    /* Mostly allocations and frees, so blocks come and go and the quarantine turns over. */
    kind = op < 24   ? 0
           : op < 46 ? 1
           : op < 58 ? 2
           : op < 64 ? 3
           : op < 70 ? 4
           : op < 77 ? 5
           : op < 83 ? 6
           : op < 86 ? 7
           : op < 91 ? 8
           : op < 94 ? 9
           : op < 98 ? 10
                     : 11;
    switch (kind) {
    case 0: bad = op_alloc(); break;
    case 1: bad = op_free(); break;
    case 2: bad = op_realloc(); break;
    case 3: bad = op_overrun(0); break;
    case 4: bad = op_overrun(1); break;
    case 5: bad = op_write_after_free(); break;
    case 6: bad = op_double_free(0); break;
    case 7: bad = op_double_free(1); break;
    case 8: bad = op_bad_pointer(0); break;
    case 9: bad = op_bad_pointer(1); break;
    case 10: bad = op_check(); break;
    default: bad = op_huge(); break;
    }
    steps++;
    ops[kind]++;
    bad |= compare(op_names[kind]);
    return bad || check_stats();
}

int model_finish(void)
{
    int bad = 0;
    uint32_t found = site(L_FREE, MT_KIND_FREE);
    for (int i = 0; i < SLOTS && !bad; i++) {
        block_t *b = &live[i];
        if (b->p == NULL)
            continue;
        void *p = b->p;
        bad |= check_content(b, "at the end");
        expect_guard_damage(b, found);
        model_release(b, found);
        memtrack_free_at(p, model_file, L_FREE, model_func);
        bad |= compare("final free");
    }
    return bad || op_check() || compare("final check") || check_stats();
}

void model_summary(void)
{
    fprintf(stderr, "model: %lu steps:", steps);
    for (unsigned k = 0; k < sizeof op_names / sizeof op_names[0]; k++)
        fprintf(stderr, " %s %lu%s", op_names[k], ops[k],
                k + 1 < sizeof op_names / sizeof op_names[0] ? "," : "\n");
}
