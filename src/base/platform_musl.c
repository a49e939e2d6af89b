/* platform_musl.c - the allocator underneath ours on musl (make PLATFORM=musl).
 *
 * musl 1.2.1 and later let a program define malloc, free, calloc, realloc, aligned_alloc,
 * posix_memalign, memalign and malloc_usable_size itself, statically linked too: libc.a
 * defines malloc weakly, and its free, realloc, calloc... are members of their own that the
 * linker leaves out once the program defines those names. libmemtrack defines them
 * (api/override.c), so every block of the process, those of musl's own callers (strdup,
 * getline, fopen) included, passes through the tracker, and a tracked block freed by code
 * built without the header (free taken as a value, a hook table) is released as tracked.
 *
 * Underneath, musl offers no public entry point under another name, so:
 *   - in a static link, musl's internal __libc_malloc and __libc_free (mallocng), which its
 *     own code calls where a replaced malloc must not be. libc.so hides them, so they are
 *     referenced weakly (a dynamic link must still link), and a weak reference takes no
 *     member out of libc.a: dlerror's member calls both, and the dlerror() call below puts
 *     it, and with it them, into every static link of libmemtrack (test/platforms/run.sh
 *     runs the programs of a static link: none would run without them);
 *   - in a dynamic link, libc.so's public malloc and free, found with dlsym(RTLD_NEXT): the
 *     program's own definitions (ours) come first for everyone else.
 * musl's realloc, aligned_alloc and malloc_usable_size are reachable by no other name, so
 * each block lent carries 16 bytes of ours just before the address the caller gets: its
 * size and a tag made from that address (plain or aligned; an aligned block also keeps,
 * one word lower, the address musl gave). Growing moves the block, aligned blocks are cut
 * from larger ones, and a pointer that carries no tag was never lent here: mt_libc_may_own
 * is exact, and a tracked pointer never reaches musl's free.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/platform.h"

#ifdef MT_MUSL_MALLOC

extern void *__libc_malloc(size_t size) __attribute__((weak));
extern void __libc_free(void *ptr) __attribute__((weak));

typedef void *(*malloc_fn)(size_t);
typedef void (*free_fn)(void *);

/* What precedes every block lent: the room keeps blocks 16-byte aligned (MT_MIN_ALIGN);
 * the header is its last bytes. */
#define ROOM ((size_t)16)
/* An aligned block also keeps musl's address just below its header. */
#define ALIGNED_ROOM ((size_t)32)
#define TAG_PLAIN ((uintptr_t)0x6d747261776d656dull)   /* "mtrawmem" */
#define TAG_ALIGNED ((uintptr_t)0x6d74616c69676e21ull) /* "mtalign!" */

typedef struct {
    size_t size;   /* the bytes asked for */
    uintptr_t tag; /* TAG_PLAIN or TAG_ALIGNED ^ the address lent, while it is lent */
} header_t;

static malloc_fn under_malloc;
static free_fn under_free; /* published last: non-NULL means both are known */

/* Finds the allocator underneath, once it is there: musl's internal one in a static link,
 * libc.so's in a dynamic one. False when neither is (then nothing is lent: NULL, ENOMEM). */
static MT_NOINLINE bool find_underneath(void)
{
    int saved = errno;
    malloc_fn m = __libc_malloc;
    free_fn f = __libc_free;
    if (m == NULL || f == NULL) { /* RTLD_NEXT: the objects after ours, never ours */
        m = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
        f = (free_fn)dlsym(RTLD_NEXT, "free");
        if (m == NULL || f == NULL)
            (void)dlerror(); /* clears the message (this call also links them: see above) */
    }
    errno = saved;
    if (m == NULL || f == NULL)
        return false;
    __atomic_store_n(&under_malloc, m, __ATOMIC_RELAXED);
    __atomic_store_n(&under_free, f, __ATOMIC_RELEASE);
    return true;
}

static inline bool ready(void)
{
    return MT_LIKELY(__atomic_load_n(&under_free, __ATOMIC_ACQUIRE) != NULL) || find_underneath();
}

static inline header_t *header_of(const void *ptr)
{
    return (header_t *)((uintptr_t)ptr - sizeof(header_t));
}

static inline bool tagged(const header_t *h, uintptr_t p)
{
    return p % MT_MIN_ALIGN == 0 && (h->tag == (TAG_PLAIN ^ p) || h->tag == (TAG_ALIGNED ^ p));
}

static void *lend(void *base, unsigned char *user, size_t size, uintptr_t tag)
{
    header_t *h = header_of(user);
    h->size = size;
    h->tag = tag ^ (uintptr_t)user;
    if (tag == TAG_ALIGNED)
        ((void **)h)[-1] = base;
    return user;
}

void *mt_libc_malloc(size_t size)
{
    if (!ready() || size > SIZE_MAX - ROOM) {
        errno = ENOMEM;
        return NULL;
    }
    unsigned char *base = under_malloc(size + ROOM);
    return base != NULL ? lend(base, base + ROOM, size, TAG_PLAIN) : NULL;
}

void *mt_libc_calloc(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = mt_libc_malloc(count * size);
    if (p != NULL)
        memset(p, 0, count * size);
    return p;
}

void *mt_libc_memalign(size_t alignment, size_t size)
{
    if (alignment <= MT_MIN_ALIGN)
        return mt_libc_malloc(size);
    while ((alignment & (alignment - 1)) != 0) /* memalign's callers may ask for any */
        alignment += alignment & -alignment;
    if (!ready() || alignment == 0 || size > SIZE_MAX - alignment - ALIGNED_ROOM) {
        errno = ENOMEM;
        return NULL;
    }
    unsigned char *base = under_malloc(size + alignment + ALIGNED_ROOM);
    if (base == NULL)
        return NULL;
    uintptr_t user = ((uintptr_t)base + ALIGNED_ROOM + alignment - 1) & ~(uintptr_t)(alignment - 1);
    return lend(base, (unsigned char *)user, size, TAG_ALIGNED);
}

bool mt_libc_may_own(const void *ptr)
{
    return ptr != NULL && tagged(header_of(ptr), (uintptr_t)ptr);
}

bool mt_libc_header_is_ours(const void *ptr, const unsigned char header[16])
{
    header_t h;
    memcpy(&h, header + 16 - sizeof h, sizeof h);
    return tagged(&h, (uintptr_t)ptr);
}

/* A pointer without our tag is left alone (a leak at worst): callers judge pointers first
 * (checks/foreign.c, api/override.c), and musl would abort on it. */
void mt_libc_free(void *ptr)
{
    if (ptr == NULL || !ready() || !mt_libc_may_own(ptr))
        return;
    header_t *h = header_of(ptr);
    void *base =
        h->tag == (TAG_ALIGNED ^ (uintptr_t)ptr) ? ((void **)h)[-1] : (unsigned char *)ptr - ROOM;
    h->tag = 0; /* a second free of it is no longer ours */
    int saved = errno;
    under_free(base);
    errno = saved; /* as glibc's free: the program's errno survives it */
}

/* Always moves: musl's own resizing is reachable by no name of its own. */
void *mt_libc_realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return mt_libc_malloc(size);
    if (!mt_libc_may_own(ptr)) {
        errno = EINVAL;
        return NULL;
    }
    size_t had = header_of(ptr)->size;
    void *moved = mt_libc_malloc(size);
    if (moved != NULL) {
        memcpy(moved, ptr, had < size ? had : size);
        mt_libc_free(ptr);
    }
    return moved;
}

/* The bytes asked for: the tracker grows a block in place only within them. */
size_t mt_libc_usable_size(void *ptr)
{
    if (ptr == NULL) {
        (void)ready(); /* mt_init: find the allocator now, outside any lock */
        return 0;
    }
    return mt_libc_may_own(ptr) ? header_of(ptr)->size : 0;
}

#endif /* MT_MUSL_MALLOC */
