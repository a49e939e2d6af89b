/* foreign.c - pointers the tracker never made, released by tracked code.
 *
 * Tracked code may free or realloc a block some library made (strdup in a library,
 * getline's buffer): that block must go back to the C library. It may also pass a pointer
 * inside a block, a stack or static address, or garbage: handing that to glibc corrupts
 * the heap or aborts. So before such a pointer reaches glibc, its chunk is checked the way
 * glibc lays chunks out, and every byte of it is read through the kernel (process_vm_readv,
 * or a pipe where that is not allowed): a bad pointer makes a syscall fail, never a fault.
 *
 * "Clearly not a heap block" (README, "Bad pointers"): a pointer is handed to glibc only if
 *   - it is 16-byte aligned and the 16 bytes before it (glibc's chunk header) are readable;
 *   - the chunk size is at least 32 and a multiple of 16, and the chunk either
 *       - was mmapped: the mapping it implies is page aligned and readable, or
 *       - lies in the main heap (between the program's end and the current break) or in a
 *         thread arena's 64 MiB heap whose header names a readable arena and covers it;
 *   - the next chunk's header is readable, sane, and says this chunk is in use;
 *   - when this chunk says its predecessor is free, the predecessor's size matches and its
 *     free-list links point back at it (glibc would unlink it);
 *   - its second word is not glibc's tcache key (the mark of a chunk glibc already has).
 * Anything else is reported and not passed on: a leak at worst, never a crash.
 * Over musl every block lent carries a header of ours (base/platform_musl.c), and the rule
 * is exact. Over another C library (Windows' CRT, newlib) its layout is not ours to read, so
 * the rule is the reverse: a pointer goes to it unless it is clearly none of its blocks.
 *
 * Untracked callers (the process's free()) do not come here: they get the table lookups
 * only, so the C library's own frees stay cheap.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/lock.h"
#include "checks/foreign.h"
#include "checks/guard.h"
#include "checks/quarantine.h"
#include "records/site.h"

#ifdef MT_GLIBC_MALLOC

/* ---- glibc's chunk layout (malloc/malloc.c) ---------------------------------------------- */

/* A chunk's words are size_t: 8 bytes on 64-bit targets, 4 on 32-bit ones, where chunks
 * stay 16-byte aligned (MALLOC_ALIGNMENT) and so start 8 bytes before a 16-aligned user
 * pointer. Words are read in the target's byte order. */
typedef size_t word_t;
#define WORD ((uintptr_t)sizeof(word_t))
#define CHUNK_HEADER (2 * WORD)
#define CHUNK_MIN (4 * WORD > 16 ? 4 * WORD : 16) /* MINSIZE */
#define FLAG_PREV_INUSE 1u
#define FLAG_MMAPPED 2u
#define FLAG_NON_MAIN_ARENA 4u
#define FLAGS 7u
/* HEAP_MAX_SIZE: 2 * DEFAULT_MMAP_THRESHOLD_MAX, 64 MiB on 64-bit targets, 1 MiB on 32-bit. */
#define ARENA_HEAP_SIZE (WORD == 8 ? (uintptr_t)64 << 20 : (uintptr_t)1 << 20)

/* Where the main heap (the brk heap) starts: field 47 (start_brk) of /proc/self/stat.
 * 0 when unknown: then only the probes and the chunk checks guard the lower side. */
static uintptr_t main_heap_start;
static pthread_once_t main_heap_once = PTHREAD_ONCE_INIT;

static void find_main_heap_start(void)
{
    char text[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return;
    text[n] = '\0';
    const char *s = strrchr(text, ')'); /* the command name may hold spaces */
    if (s == NULL)
        return;
    for (int field = 2; field < 47 && s != NULL; field++) {
        s = strchr(s + 1, ' ');
    }
    if (s == NULL)
        return;
    uintptr_t v = 0;
    for (s++; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (uintptr_t)(*s - '0');
    main_heap_start = v;
}

static uintptr_t tcache_key;
static pthread_once_t tcache_key_once = PTHREAD_ONCE_INIT;

/* glibc marks a chunk it keeps in a thread cache by storing a random key in the chunk's
 * second word. Learn it from a chunk of our own: free it and read that word back (through
 * the kernel: the chunk is glibc's now). 0 when the thread cache is off or the bin full. */
static void learn_tcache_key(void)
{
    word_t *q = mt_libc_malloc(1000);
    word_t key = 0;
    if (q == NULL)
        return;
    q[0] = q[1] = 0;
    mt_libc_free(q);
    if (mt_probe_read((uintptr_t)&q[1], &key, sizeof key))
        tcache_key = (uintptr_t)key;
}

/* Where the chunks of the heap holding chunk may lie: [*lo, *hi). False when the chunk is
 * in no heap glibc could have made. */
static bool heap_bounds(uintptr_t chunk, word_t size_field, uintptr_t *lo, uintptr_t *hi)
{
    if (size_field & FLAG_NON_MAIN_ARENA) {
        uintptr_t heap = chunk & ~(uintptr_t)(ARENA_HEAP_SIZE - 1);
        word_t info[3]; /* heap_info: ar_ptr, prev, size */
        word_t arena_word;
        if (!mt_probe_read(heap, info, sizeof info) || info[0] == 0 ||
            !mt_probe_read((uintptr_t)info[0], &arena_word, sizeof arena_word) ||
            info[2] > ARENA_HEAP_SIZE)
            return false;
        *lo = heap + sizeof info;
        *hi = heap + (uintptr_t)info[2];
    } else {
        pthread_once(&main_heap_once, find_main_heap_start);
        *lo = main_heap_start;
        *hi = (uintptr_t)sbrk(0);
    }
    return *lo <= chunk && chunk < *hi;
}

/* A free chunk at c that glibc would unlink: its size and both neighbours' links agree. */
static bool free_chunk_consistent(uintptr_t c, word_t expected_size)
{
    word_t hdr[4], link;
    if (!mt_probe_read(c, hdr, sizeof hdr) || (hdr[1] & ~(word_t)FLAGS) != expected_size)
        return false;
    /* fd->bk == c and bk->fd == c, as glibc's unlink checks. */
    if (!mt_probe_read((uintptr_t)hdr[2] + 3 * WORD, &link, sizeof link) || link != c)
        return false;
    if (!mt_probe_read((uintptr_t)hdr[3] + 2 * WORD, &link, sizeof link) || link != c)
        return false;
    return true;
}

static bool mmapped_chunk_ok(uintptr_t p, uintptr_t chunk, word_t prev_size, word_t size)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), block = chunk - (uintptr_t)prev_size;
    word_t total = prev_size + size;
    uintptr_t in_page = p & (page - 1);
    unsigned char first, last;
    if (prev_size > chunk || total < size || ((block | total) & (page - 1)) != 0 ||
        (in_page & (in_page - 1)) != 0)
        return false;
    return mt_probe_read(block, &first, 1) && mt_probe_read(block + total - 1, &last, 1);
}

/* The checks of the comment at the top, for the chunk whose user pointer is p. */
static bool is_libc_chunk(uintptr_t p, mt_pointer_class_t *why)
{
    uintptr_t lo, hi;
    word_t hdr[2], words[2], next[2];
    unsigned char byte;
    *why = mt_probe_read(p, &byte, 1) ? MT_POINTER_NOT_HEAP : MT_POINTER_WILD;
    if (p % MT_MIN_ALIGN != 0 || p < 4096 || !mt_probe_read(p - CHUNK_HEADER, hdr, sizeof hdr))
        return false;
    uintptr_t chunk = p - CHUNK_HEADER;
    word_t size = hdr[1] & ~(word_t)FLAGS;
    if (size < CHUNK_MIN || size % 16 != 0 || chunk + size < chunk)
        return false;
    if (hdr[1] & FLAG_MMAPPED)
        return !(hdr[1] & FLAG_NON_MAIN_ARENA) && mmapped_chunk_ok(p, chunk, hdr[0], size);
    if (!heap_bounds(chunk, hdr[1], &lo, &hi) || size > hi - chunk ||
        !mt_probe_read(chunk + size, next, sizeof next) || !mt_probe_read(p, words, sizeof words))
        return false;
    word_t next_size = next[1] & ~(word_t)FLAGS;
    /* Word pairs, not 16: the next chunk may be the top one, which runs to the heap's
     * page-aligned end from an address that is 8 past a multiple of 16 on 32-bit targets. */
    if (next_size < CHUNK_HEADER || next_size % CHUNK_HEADER != 0 ||
        next_size > hi - (chunk + size))
        return false;
    pthread_once(&tcache_key_once, learn_tcache_key);
    if (!(next[1] & FLAG_PREV_INUSE) || (tcache_key != 0 && words[1] == tcache_key)) {
        *why = MT_POINTER_RELEASED;
        return false;
    }
    if (!(hdr[1] & FLAG_PREV_INUSE)) { /* glibc will merge it with the free chunk before */
        word_t prev_size = hdr[0];
        if (prev_size < CHUNK_MIN || prev_size % 16 != 0 || prev_size > chunk - lo ||
            !free_chunk_consistent(chunk - (uintptr_t)prev_size, prev_size))
            return false;
    }
    return true;
}

#endif /* MT_GLIBC_MALLOC */

/* True when p is where the C library's block under a tracked block (live or freed)
 * starts: a real C library block, but ours. Tried for every alignment up to 64 KiB. */
static bool starts_tracked_block(uintptr_t p)
{
    for (unsigned shift = 4; shift <= 16; shift++) {
        size_t front = mt_block_front(shift);
        if (front == 0 || p + front < p)
            continue;
        uintptr_t user = p + front;
        mt_shard_t *s = mt_shard_of(user);
        mt_lock(&s->lock);
        mt_block_t *b = mt_table_find_locked(s, user);
        uint64_t meta = b != NULL ? b->meta : 0;
        if (b == NULL && (b = mt_quarantine_find_locked(s, user)) != NULL)
            meta = mt_meta_load(b);
        mt_unlock(&s->lock);
        if (b != NULL && MT_META_ALIGN_SHIFT(meta) == shift)
            return true;
    }
    return false;
}

#if defined(MT_GLIBC_MALLOC)

bool mt_foreign_is_libc_block(const void *ptr, mt_pointer_class_t *why)
{
    uintptr_t p = (uintptr_t)ptr, front = mt_block_front(4);
    if (is_libc_chunk(p, why))
        return !starts_tracked_block(p);
    /* A tracked block released outside the quarantine's window and freed again: its C
     * library chunk starts at our front guard. Say so rather than "not allocated". */
    mt_pointer_class_t raw_why;
    if (*why == MT_POINTER_NOT_HEAP && front != 0 && p > front &&
        !is_libc_chunk(p - front, &raw_why) && raw_why == MT_POINTER_RELEASED)
        *why = MT_POINTER_RELEASED;
    return false;
}

#elif defined(MT_SANITIZER_ALLOCATOR) /* the sanitizer's allocator is underneath: it can tell */

/* ThreadSanitizer's ownership test is true for any address inside a block; its allocated
 * size is known only at a block's first 8 bytes, and blocks are 16-byte aligned: together
 * they mean "the start of a block", as AddressSanitizer's ownership test alone does. */
bool mt_foreign_is_libc_block(const void *ptr, mt_pointer_class_t *why)
{
    unsigned char byte;
    if ((uintptr_t)ptr % MT_MIN_ALIGN == 0 && __sanitizer_get_ownership(ptr) &&
        __sanitizer_get_allocated_size(ptr) != 0 && !starts_tracked_block((uintptr_t)ptr))
        return true;
    *why = mt_probe_read((uintptr_t)ptr, &byte, 1) ? MT_POINTER_NOT_HEAP : MT_POINTER_WILD;
    return false;
}

#elif defined(MT_MUSL_MALLOC)

/* Every block the allocator underneath lends carries a header of ours whose tag is made
 * from its address (base/platform_musl.c): a pointer is one of them exactly when the 16
 * bytes before it are readable and hold that tag, and it is not where the C library's
 * block under a tracked block starts. */
bool mt_foreign_is_libc_block(const void *ptr, mt_pointer_class_t *why)
{
    uintptr_t p = (uintptr_t)ptr;
    unsigned char byte, header[16];
    mt_block_t gone;
    *why = mt_probe_read(p, &byte, 1) ? MT_POINTER_NOT_HEAP : MT_POINTER_WILD;
    if (p % MT_MIN_ALIGN == 0 && p >= sizeof header &&
        mt_probe_read(p - sizeof header, header, sizeof header) &&
        mt_libc_header_is_ours(ptr, header))
        return !starts_tracked_block(p);
    if (*why == MT_POINTER_NOT_HEAP && mt_gone_find(ptr, &gone))
        *why = MT_POINTER_RELEASED; /* a tracked block given back lately, freed again */
    return false;
}

#else /* another C library (Windows' CRT, newlib): its chunks are not ours to read. */

static bool on_own_stack(uintptr_t p);
static bool is_static(const void *ptr);

/* Without the C library's layout, a pointer goes to it unless it is clearly not one of its
 * blocks: misaligned, unreadable, on this thread's stack, in a program's or a library's
 * static data, where a tracked block starts, or where a block given back lately was (a
 * second free). The C library judges the rest, as it would without memtrack. */
bool mt_foreign_is_libc_block(const void *ptr, mt_pointer_class_t *why)
{
    uintptr_t p = (uintptr_t)ptr;
    unsigned char byte;
    mt_block_t gone;
    *why = mt_probe_read(p, &byte, 1) ? MT_POINTER_NOT_HEAP : MT_POINTER_WILD;
    if (*why == MT_POINTER_WILD || p % MT_LIBC_ALIGN != 0 || on_own_stack(p) || is_static(ptr))
        return false;
    if (mt_gone_find(ptr, &gone)) {
        *why = MT_POINTER_RELEASED;
        return false;
    }
#if MT_LIBC_ALIGN < MT_MIN_ALIGN
    /* The C library's blocks are aligned less than ours: a pointer 8 bytes into a tracked
     * block looks like one of them, so the blocks are asked (a walk of them all, on a
     * target with few). */
    if (mt_foreign_inside_tracked(ptr))
        return false;
#endif
    return !starts_tracked_block(p);
}

#endif

/* ---- describing a bad pointer ---------------------------------------------------------- */

typedef struct inside_ctx {
    uintptr_t p;
    bool found;
    mt_block_t block;
    uint64_t meta;
} inside_ctx_t;

/* A block "contains" p from its front guard to the end of its back guard. */
static bool block_contains(const mt_block_t *b, uint64_t meta, uintptr_t p)
{
    uintptr_t raw = (uintptr_t)mt_block_raw(mt_block_addr(b), meta);
    return p >= raw && p < mt_block_addr(b) + b->size + mt_block_back();
}

static void find_live(mt_block_t *b, void *ctx)
{
    inside_ctx_t *c = ctx;
    if (!c->found && block_contains(b, b->meta, c->p)) {
        c->found = true;
        c->block = *b;
        c->meta = b->meta;
    }
}

static void find_freed(mt_shard_t *s, mt_block_t *b, void *ctx)
{
    inside_ctx_t *c = ctx;
    uint64_t meta = mt_meta_load(b);
    (void)s;
    if (!c->found && block_contains(b, meta, c->p)) {
        c->found = true;
        mt_block_set_addr(&c->block, mt_block_addr(b));
        c->block.size = b->size;
        c->block.site = b->site;
        c->block.free_site = b->free_site;
        c->meta = meta;
    }
}

/* True when p lies on the calling thread's stack. */
static bool on_own_stack(uintptr_t p)
{
    pthread_attr_t attr;
    void *base;
    size_t size;
    bool on = false;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return false;
    if (pthread_attr_getstack(&attr, &base, &size) == 0)
        on = p >= (uintptr_t)base && p - (uintptr_t)base < size;
    pthread_attr_destroy(&attr);
    return on;
}

/* True when p is static data or code: in the program's image or a loaded object. */
static bool is_static(const void *ptr)
{
    Dl_info info;
    return mt_in_program_image((uintptr_t)ptr) || dladdr(ptr, &info) != 0;
}

/* Scans the live blocks, then the quarantined ones, for one that holds c->p (guards
 * included); says which it found, or UNKNOWN. */
static mt_pointer_class_t find_inside(inside_ctx_t *c)
{
    mt_table_foreach(find_live, c);
    if (c->found)
        return MT_POINTER_INSIDE_LIVE;
    mt_quarantine_foreach(find_freed, c);
    return c->found ? MT_POINTER_INSIDE_FREED : MT_POINTER_UNKNOWN;
}

bool mt_foreign_inside_tracked(const void *ptr)
{
    inside_ctx_t c = {.p = (uintptr_t)ptr};
    mt_busy++;
    (void)find_inside(&c);
    mt_busy--;
    return c.found;
}

void mt_foreign_describe(const void *ptr, mt_pointer_class_t why, bool detailed, mt_error_t *e)
{
    uintptr_t p = (uintptr_t)ptr;
    e->pointer = p;
    e->addr = p;
    e->what = why;
    if (!detailed)
        return;
    mt_busy++; /* what the C library allocates below goes straight to it */
    inside_ctx_t c = {.p = p};
    mt_pointer_class_t inside = find_inside(&c);
    if (c.found) {
        e->what = inside;
        e->addr = mt_block_addr(&c.block);
        e->size = c.block.size;
        e->seq = MT_META_SEQ(c.meta);
        e->thread = MT_META_THREAD(c.meta);
        e->alloc_site = c.block.site;
        e->free_site = e->what == MT_POINTER_INSIDE_FREED ? c.block.free_site : MT_SITE_NONE;
        e->offset = (int64_t)p - (int64_t)mt_block_addr(&c.block); /* negative in the front guard */
    } else if (why == MT_POINTER_NOT_HEAP && on_own_stack(p)) {
        e->what = MT_POINTER_STACK;
    } else if (why == MT_POINTER_NOT_HEAP && is_static(ptr)) {
        e->what = MT_POINTER_STATIC;
    }
    mt_busy--;
}
