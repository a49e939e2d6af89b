/* reach.c - the leak scan: which live blocks the program still points at, and through what.
 *
 * As Valgrind's memcheck tells it. Every aligned word of the roots (base/roots.h) is taken
 * for a pointer: one equal to a block's start makes that block reachable, one into its
 * middle possibly lost. The blocks so found are read in turn (by words from each block's
 * start, wherever that lies: block_words), breadth first (so a block's
 * chain from its root is a shortest one): a reachable block's word at another's start makes
 * that one reachable, any other word into a block not yet reached makes it possibly lost.
 * The blocks left are lost. Then, in address order, each lost block leads a clique: every
 * block it reaches that nothing else reached (a word at its start or inside it) is
 * indirectly lost, a lost block an earlier clique led included. A lost list's head is lost
 * and its other nodes indirectly lost.
 *
 * A word finds its block by bisection in a copy of the table sorted by address, made at the
 * scan in pages of its own. The tracker's own memory is never a root (its records hold the
 * address of every block), nor are blocks in quarantine. Roots, and blocks whose memory
 * their owner may unmap (a pool's, a registrar's), are read through the kernel
 * (process_vm_readv, many blocks a call): a stack that goes away, a guard page or device
 * memory makes a read fail, never a fault. malloc'd blocks are read in place, every shard
 * locked so that none is given back meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "api/api.h"
#include "api/reach.h"
#include "base/heap_sort.h"
#include "checks/foreign.h"

/* ---- the entry point's stack ---------------------------------------------------------- */

static MT_TLS uintptr_t stack_from; /* 0: no entry point marked its stack */
static MT_TLS void *entry_frame;
static MT_TLS bool entry_at_exit;

MT_NOINLINE void mt_reach_enter(void *frame, bool at_exit)
{
    /* The canonical frame address of this call is the caller's stack pointer at the call:
     * its frame, with the registers it saved, lies at and above it. */
    stack_from = (uintptr_t)__builtin_dwarf_cfa();
    entry_frame = frame;
    entry_at_exit = at_exit;
}

void mt_reach_leave(void)
{
    stack_from = 0;
    entry_frame = NULL;
    entry_at_exit = false;
}

/* ---- reading memory through the kernel -------------------------------------------------- */

/* Reading the program's memory as its threads change it is the scan's way (a conservative
 * scan): ThreadSanitizer is told so where blocks are read in place. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MT_NO_TSAN __attribute__((no_sanitize("thread")))
#endif
#elif defined(__SANITIZE_THREAD__)
#define MT_NO_TSAN __attribute__((no_sanitize("thread")))
#endif
#ifndef MT_NO_TSAN
#define MT_NO_TSAN
#endif

/* What is read at once, and the blocks a read may take (IOV_MAX is 1024); on bare metal,
 * where the scan's memory is the static buffer's part kept for the report, little. */
#define BUFFER_BYTES MT_SMALL(256u * 1024u, 512u)
#define BATCH_BLOCKS MT_SMALL(256u, 8u)
#define PIECE 4096u /* what a read that failed is tried again by */

typedef struct reader {
    unsigned char *buf; /* BUFFER_BYTES, in pages of its own */
    bool refused;       /* process_vm_readv is not allowed: a piece at a time (the pipe) */
} reader_t;

/* Reads n bytes (n <= BUFFER_BYTES) at addr into out; true only when all were read. */
static bool read_all(reader_t *rd, uintptr_t addr, size_t n, void *out)
{
    if (!mt_memory_may_read(addr, n))
        return false;
    if (!rd->refused) {
        struct iovec local = {out, n}, remote = {(void *)addr, n};
        ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (got == (ssize_t)n)
            return true;
        if (!(got < 0 && (errno == ENOSYS || errno == EPERM)))
            return false;
        rd->refused = true; /* seccomp, an old kernel, an emulator */
    }
    for (size_t at = 0; at < n; at += PIECE) /* the pipe holds a piece at a time */
        if (!mt_probe_read(addr + at, (unsigned char *)out + at, n - at < PIECE ? n - at : PIECE))
            return false;
    return true;
}

/* ---- the blocks, by address -------------------------------------------------------------- */

typedef struct scan {
    mt_reach_t *r;
    reader_t rd;
    uintptr_t low, high; /* no word outside [low, high) is a block's */
    uintptr_t *ends;     /* overlapping blocks (registered inside others): the highest end of
                            blocks[0..i], else NULL */
    uint32_t *queue;     /* blocks to read: room for two visits each */
    size_t head, tail;
    uint32_t leader; /* the clique being followed (MT_REACH_NO_BLOCK: the roots' pass) */
    bool locked;     /* every shard's lock is held: blocks are read in place */
    bool ok;
} scan_t;

uint32_t mt_reach_find(const mt_reach_t *r, uintptr_t addr)
{
    size_t low = 0, high = r->n; /* the first block starting after addr: high */
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (r->blocks[mid].start <= addr)
            low = mid + 1;
        else
            high = mid;
    }
    if (high == 0)
        return MT_REACH_NO_BLOCK;
    const mt_reach_block_t *b = &r->blocks[high - 1];
    if (addr == b->start || addr - b->start < b->size)
        return (uint32_t)(high - 1);
    return MT_REACH_NO_BLOCK;
}

/* mt_reach_find, with blocks inside others (a registered piece of a malloc'd chunk): the
 * innermost that holds addr. */
static uint32_t find_block(const scan_t *s, uintptr_t addr)
{
    uint32_t i = mt_reach_find(s->r, addr);
    if (i != MT_REACH_NO_BLOCK || s->ends == NULL)
        return i;
    size_t low = 0, high = s->r->n;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (s->r->blocks[mid].start <= addr)
            low = mid + 1;
        else
            high = mid;
    }
    for (size_t k = high; k-- > 0 && s->ends[k] > addr;) {
        const mt_reach_block_t *b = &s->r->blocks[k];
        if (addr - b->start < b->size)
            return (uint32_t)k;
    }
    return MT_REACH_NO_BLOCK;
}

static void enqueue(scan_t *s, uint32_t i)
{
    s->queue[s->tail++] = i; /* room: see queue_room */
}

static bool read_plain(scan_t *s, uint32_t i);

/* Valgrind's heuristics for a pointer one word into a block (its length64 and newarray): a
 * block whose first word holds its length less that word (SQLite's allocator keeps its
 * blocks' sizes so) or a count of elements that fit in it (C++'s new[] of objects with a
 * destructor keeps the count before them), pointed at just past that word, is pointed at
 * as by its start. */
static MT_NO_TSAN bool counted_start(scan_t *s, uint32_t j)
{
    const mt_reach_block_t *b = &s->r->blocks[j];
    uintptr_t first;
    if (b->size < 2 * sizeof first || b->start % sizeof first != 0)
        return false;
    if (s->locked && read_plain(s, j))
        memcpy(&first, (const void *)b->start, sizeof first);
    else if (!read_all(&s->rd, b->start, sizeof first, &first))
        return false;
    return first != 0 && first <= b->size - sizeof first;
}

static void visit_block(scan_t *s, uintptr_t at, uintptr_t value, uint32_t from, uint32_t j);

/* Word `value`, kept at address `at` in block `from` (MT_REACH_NO_BLOCK: in a root). */
static void visit(scan_t *s, uintptr_t at, uintptr_t value, uint32_t from)
{
    if (value < s->low || value >= s->high)
        return;
    uint32_t j = find_block(s, value);
    if (j == MT_REACH_NO_BLOCK)
        return;
    visit_block(s, at, value, from, j);
    /* A pointer to a chunk's start, where a registered block starts too (twins: the chunk
     * is the one before it in the order), holds both: one word cannot say which it means. */
    if (j > 0 && s->r->blocks[j - 1].start == value && s->r->blocks[j].start == value)
        visit_block(s, at, value, from, j - 1);
}

/* visit's step for block j, which holds value. */
static void visit_block(scan_t *s, uintptr_t at, uintptr_t value, uint32_t from, uint32_t j)
{
    if (j == from)
        return;
    mt_reach_block_t *to = &s->r->blocks[j];
    uintptr_t into = value - to->start;
    if (s->leader != MT_REACH_NO_BLOCK) { /* following a lost block's clique */
        if (to->state != MT_REACH_UNREACHED || j == s->leader)
            return;
        to->state = MT_REACH_INDIRECT;
    } else {
        bool definite = from == MT_REACH_NO_BLOCK || s->r->blocks[from].state == MT_REACH_REACHABLE;
        bool start = into == 0 || (into == sizeof(uintptr_t) && to->state != MT_REACH_REACHABLE &&
                                   counted_start(s, j));
        if (start && definite && to->state != MT_REACH_REACHABLE)
            to->state = MT_REACH_REACHABLE;
        else if (to->state == MT_REACH_UNREACHED)
            to->state = MT_REACH_POSSIBLE;
        else
            return;
    }
    to->parent = from;
    to->via = at;
    to->offset = into < UINT32_MAX ? (uint32_t)into : UINT32_MAX;
    enqueue(s, j);
}

static MT_NO_TSAN void visit_words(scan_t *s, uintptr_t addr, const unsigned char *bytes, size_t n,
                                   uint32_t from)
{
    size_t words = n / sizeof(uintptr_t);
    for (size_t k = 0; k < words; k++) {
        uintptr_t v;
        memcpy(&v, bytes + k * sizeof v, sizeof v);
        visit(s, addr + k * sizeof v, v, from);
    }
    s->r->words += words;
}

/* Reads [start, end) (aligned) and visits its words; unreadable pieces are left out. */
static void visit_range(scan_t *s, uintptr_t start, uintptr_t end, uint32_t from)
{
    while (start < end) {
        size_t n = end - start < BUFFER_BYTES ? end - start : BUFFER_BYTES;
        if (read_all(&s->rd, start, n, s->rd.buf)) {
            visit_words(s, start, s->rd.buf, n, from);
        } else { /* a piece at a time: what can be read is */
            for (size_t at = 0; at < n; at += PIECE) {
                size_t m = n - at < PIECE ? n - at : PIECE;
                if (read_all(&s->rd, start + at, m, s->rd.buf))
                    visit_words(s, start + at, s->rd.buf, m, from);
            }
        }
        start += n;
    }
}

/* The words of a block: from its start, where the program's objects in it start, whatever
 * its alignment (a page-guarded block ends at its page, aligned only as its size asks: a
 * pointer 8 bytes into a block of 20 bytes is 4 bytes off a word of memory; read by words
 * of memory, it was not seen, and what it held was reported lost). */
static uintptr_t block_words(const mt_reach_block_t *b, uintptr_t *end)
{
    *end = b->start + (b->size & ~(sizeof(uintptr_t) - 1));
    return b->start;
}

/* Visits the words of block i in place when it is a malloc'd block still live: while the
 * scan holds every shard's lock, no such block can be given back to the C library, so its
 * memory stays (a pool's, an arena's or a registrar's block lives in memory its owner may
 * unmap: read through the kernel). */
/* Whether block i is a malloc'd block still live, to be read in place (with every shard's
 * lock held): its record, as the table has it now, is still its own. */
static bool read_plain(scan_t *s, uint32_t i)
{
    const mt_reach_block_t *b = &s->r->blocks[i];
    const mt_block_t *rec = b->record;
    return !(b->meta & MT_META_FLAG_OWNED) && mt_block_addr(rec) == b->start &&
           !(mt_meta_load(rec) & MT_META_FLAG_FREED) && rec->size == b->size;
}

static MT_NO_TSAN bool visit_in_place(scan_t *s, uint32_t i, uintptr_t start, uintptr_t end)
{
    if (s->r->blocks[i].meta & MT_META_FLAG_OWNED)
        return false;     /* read through the kernel */
    if (read_plain(s, i)) /* else freed since it was taken: nothing is held through it */
        visit_words(s, start, (const unsigned char *)start, end - start, i);
    return true;
}

/* Reads the queued blocks and visits their words, until the queue is empty: in place, or
 * many a call through the kernel. */
static void drain(scan_t *s)
{
    struct iovec remote[BATCH_BLOCKS];
    uint32_t which[BATCH_BLOCKS];
    while (s->head < s->tail) {
        size_t k = 0, bytes = 0;
        while (s->head < s->tail && k < BATCH_BLOCKS) {
            uint32_t i = s->queue[s->head];
            uintptr_t end, start = block_words(&s->r->blocks[i], &end);
            size_t n = end - start;
            if (s->locked && visit_in_place(s, i, start, end)) {
                s->head++;
                continue;
            }
            if (n > BUFFER_BYTES - bytes) {
                if (k == 0) { /* a large block alone, in pieces */
                    s->head++;
                    visit_range(s, start, end, i);
                }
                break;
            }
            s->head++;
            if (n == 0 || !mt_memory_may_read(start, n))
                continue;
            remote[k] = (struct iovec){(void *)start, n};
            which[k++] = i;
            bytes += n;
        }
        if (k == 0)
            continue;
        size_t done = 0, at = 0; /* pieces read whole */
        if (!s->rd.refused) {
            struct iovec local = {s->rd.buf, bytes};
            ssize_t got = process_vm_readv(getpid(), &local, 1, remote, k, 0);
            if (got < 0 && (errno == ENOSYS || errno == EPERM))
                s->rd.refused = true;
            /* A partial read ends at a whole piece: the pieces before it are read. */
            for (size_t sum = 0; got > 0 && done < k && sum + remote[done].iov_len <= (size_t)got;)
                sum += remote[done++].iov_len;
        }
        for (size_t p = 0; p < k; p++) {
            uintptr_t start = (uintptr_t)remote[p].iov_base;
            if (p < done) /* scanned from the copy; it stays valid: visits only enqueue */
                visit_words(s, start, s->rd.buf + at, remote[p].iov_len, which[p]);
            at += remote[p].iov_len;
        }
        for (size_t p = done; p < k; p++) { /* the rest one by one, a piece at a time */
            uintptr_t start = (uintptr_t)remote[p].iov_base;
            visit_range(s, start, start + remote[p].iov_len, which[p]);
        }
    }
}

/* ---- taking the blocks ---------------------------------------------------------------- */

/* Room for `more` blocks in all (the blocks so far kept). */
static bool grow_blocks(mt_reach_t *r, size_t more)
{
    mt_reach_block_t *fresh = mt_pages_alloc_for_report(more * sizeof *fresh);
    if (fresh == NULL)
        return false;
    if (r->blocks != NULL) {
        memcpy(fresh, r->blocks, r->n * sizeof *fresh);
        mt_pages_free(r->blocks, r->cap * sizeof *fresh);
    }
    r->blocks = fresh;
    r->cap = more;
    return true;
}

typedef struct take_ctx {
    mt_reach_t *r;
    bool ok;
} take_ctx_t;

static void count_block(mt_block_t *b, void *ctx)
{
    (void)b;
    (*(size_t *)ctx)++;
}

static void take_block(mt_block_t *b, void *ctx)
{
    take_ctx_t *c = ctx;
    /* (more than were counted: other threads made them since) */
    if (c->r->n == c->r->cap && !(c->ok = c->ok && grow_blocks(c->r, c->r->cap * 2 + 16)))
        return;
    c->r->blocks[c->r->n++] =
        (mt_reach_block_t){mt_block_addr(b),  b->size, mt_meta_load(b),    0, b->site,
                           MT_REACH_NO_BLOCK, 0,       MT_REACH_UNREACHED, b};
}

/* By address; of twins (a registered block at the start of its chunk), the chunk first, so
 * that the innermost block that holds an address is the last that starts at or before it. */
static int by_start(const void *a, const void *b)
{
    const mt_reach_block_t *p = a, *q = b;
    if (p->start != q->start)
        return (p->start > q->start) - (p->start < q->start);
    return (p->size < q->size) - (p->size > q->size);
}

/* ---- the scan ------------------------------------------------------------------------- */

static size_t queue_room(size_t n)
{
    return 2 * n + 2; /* a block is queued once possibly lost, once reachable, at most */
}

static void scan_roots(scan_t *s)
{
    const mt_roots_t *roots = &s->r->roots;
    for (size_t i = 0; i < roots->n; i++) {
        const mt_root_t *root = &roots->list[i];
        if (root->kind == MT_ROOT_REGISTERS) /* values of the tracker's: read as they are */
            visit_words(s, root->start, (const unsigned char *)root->start, root->end - root->start,
                        MT_REACH_NO_BLOCK);
        else
            visit_range(s, root->start, root->end, MT_REACH_NO_BLOCK);
    }
    drain(s);
}

static void follow_cliques(scan_t *s)
{
    for (size_t i = 0; i < s->r->n; i++) {
        if (s->r->blocks[i].state != MT_REACH_UNREACHED)
            continue;
        s->leader = (uint32_t)i;
        s->head = s->tail = 0; /* every block is queued once in all the cliques */
        enqueue(s, (uint32_t)i);
        drain(s);
    }
    s->leader = MT_REACH_NO_BLOCK;
}

static bool scan_setup(scan_t *s, mt_reach_t *r)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    s->leader = MT_REACH_NO_BLOCK;
    s->rd.buf = mt_pages_alloc_for_report(BUFFER_BYTES);
    s->queue = mt_pages_alloc_for_report(queue_room(r->n) * sizeof *s->queue);
    if (s->rd.buf == NULL || s->queue == NULL)
        return false;
    s->low = r->blocks[0].start;
    for (size_t i = 0; i < r->n; i++) {
        uintptr_t end = r->blocks[i].start + (r->blocks[i].size != 0 ? r->blocks[i].size : 1);
        if (end > s->high) {
            s->high = end;
        } else if (s->ends == NULL) { /* a block inside another: keep the highest ends */
            s->ends = mt_pages_alloc_for_report(r->n * sizeof *s->ends);
            if (s->ends == NULL)
                return false;
        }
    }
    if (s->ends != NULL) {
        uintptr_t top = 0;
        for (size_t i = 0; i < r->n; i++) {
            uintptr_t end = r->blocks[i].start + r->blocks[i].size;
            top = end > top ? end : top;
            s->ends[i] = top;
        }
    }
    return true;
}

static void scan_done(scan_t *s)
{
    if (s->rd.buf != NULL)
        mt_pages_free(s->rd.buf, BUFFER_BYTES);
    if (s->queue != NULL)
        mt_pages_free(s->queue, queue_room(s->r->n) * sizeof *s->queue);
    if (s->ends != NULL)
        mt_pages_free(s->ends, s->r->n * sizeof *s->ends);
}

bool mt_reach_scan(mt_reach_t *r)
{
    memset(r, 0, sizeof *r);
    int saved = errno;
    mt_busy++;
    size_t live = 0;
    mt_table_foreach(count_block, &live);
    take_ctx_t take = {r, live == 0 || grow_blocks(r, live + live / 8 + MT_SMALL(64u, 0u))};
    mt_table_foreach(take_block, &take);
    bool ok = take.ok;
    if (ok && r->n != 0) {
        mt_heap_sort(r->blocks, r->n, sizeof *r->blocks, by_start);
        /* Without an entry point's mark, this thread's stack from here up: the frames of
         * the tracker's below it are its own, above it the program's. */
        uintptr_t from = stack_from != 0 ? stack_from : (uintptr_t)__builtin_frame_address(0);
        ok = mt_roots_collect(&r->roots, from, entry_frame, entry_at_exit) &&
             mt_reach_add_registered(&r->roots);
        if (ok)
            mt_roots_finish(&r->roots);
        scan_t s = {.r = r};
        ok = ok && scan_setup(&s, r);
        if (ok) {
            /* The blocks are read with every shard locked: another thread's malloc or free
             * waits meanwhile. Nothing here takes another lock of the tracker's or the
             * loader's (the roots are found already), nor allocates. */
            mt_table_lock_all();
            s.locked = true;
            scan_roots(&s);
            follow_cliques(&s);
            mt_table_unlock_all();
        }
        scan_done(&s);
    }
    for (size_t i = 0; ok && i < r->n; i++) {
        mt_reach_block_t *b = &r->blocks[i];
        if (b->state == MT_REACH_UNREACHED)
            b->state = MT_REACH_LOST;
        r->blocks_in[b->state]++;
        r->bytes_in[b->state] += b->size;
    }
    if (!ok)
        mt_reach_free(r);
    mt_busy--;
    errno = saved;
    return ok;
}

void mt_reach_free(mt_reach_t *r)
{
    if (r->blocks != NULL)
        mt_pages_free(r->blocks, r->cap * sizeof *r->blocks);
    mt_roots_free(&r->roots);
    memset(r, 0, sizeof *r);
}
