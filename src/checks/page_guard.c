/* page_guard.c - page-guarded blocks: the region they live in, its slots, the choice of
 * blocks (sampled, chosen sites, all) and the report of a fault at one of their pages.
 *
 * The region is reserved (inaccessible, no memory committed) at the first page-guarded
 * block, in classes of fixed-size slots: a slot is one guard page, then 2^c data pages.
 *
 *    | guard | data (2^c pages) | guard | data | guard | ... | data | guard |
 *                  ...[slack][block]^ end side (default): the block ends at the page after
 *                  [block][pad]...    start side: the block starts right after a guard page
 *
 * At the end side a block lies as close to the next guard page as its alignment lets it
 * (page_guard_align.h: to the byte for a listed site's, so a one-byte overrun faults), and
 * an overrun into the pad left is found by the check of the pad instead. The `guard` bytes
 * before the block are filled and checked as any front
 * guard, and so is the pad after it. At the start side the pad after it is checked.
 * A freed slot's pages are closed (their memory goes back to the kernel) until the slot is
 * reused, the oldest freed first, so a use after free faults.
 * Sampling alone reserves page_guard_slots slots of one data page; with sites or all, 16
 * classes of about 1 GiB each, for blocks up to 128 MiB (bigger ones get byte guards).
 *
 * A fault in the region comes here from the crash handler (api/crash.c). It runs in the
 * thread that made the access, in the program's code (never inside the tracker, whose
 * checks never touch an inaccessible page), so it may do what a report does: look the
 * block up, symbolize the faulting instruction (libdw) and print. It reports once per
 * block, then opens the page and returns, so the access runs again and the program goes
 * on (page_guard_stop=1: the program ends as the signal would).
 *
 * Locking: the pool's lock (a spin lock, never held across a system call or a report)
 * protects the slots' states, the freed slots' queues and the counts. The fault handler
 * only tries it.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/options.h"
#include "base/os_memory.h"
#include "base/output.h"
#include "checks/page_guard.h"
#include "checks/page_guard_align.h"
#include "checks/page_guard_access.h"
#include "checks/quarantine.h"
#include "errors/error.h"
#include "records/place.h"
#include "records/site.h"

uintptr_t mt_pg_start;
size_t mt_pg_size;
MT_TLS size_t mt_pg_countdown;
/* The sampling countdown while sites or all are chosen: mt_pg_countdown then stays 1, so
 * that every allocation asks mt_page_guard_choose. */
static MT_TLS size_t sample_countdown;
bool mt_pg_every_call;
bool mt_page_guard_start;

#define CLASSES_MAX 16u
/* bytes of region per class, with sites or all (a 32-bit process has 4 GiB in all) */
#define CLASS_SPAN (sizeof(void *) >= 8 ? (size_t)1 << 30 : (size_t)1 << 24)
#define SITE_CACHE ((size_t)1 << 16) /* sites whose choice is remembered */

enum { SLOT_UNUSED, SLOT_LIVE, SLOT_FREED };

typedef struct pg_slot {
    mt_block_t record; /* freed: its record as it left the table (free site included) */
    uintptr_t user;    /* live or freed: the block's address and size */
    size_t size;
    unsigned char state; /* SLOT_* */
    bool sampled;        /* chosen by sampling (counted in `sampled_live`) */
    bool reported;       /* a fault was reported and its page opened */
} pg_slot_t;

typedef struct pg_class {
    uintptr_t base;    /* the first slot's guard page */
    size_t pages;      /* data pages per slot */
    size_t stride;     /* a guard page and the data pages */
    uint32_t capacity; /* slots */
    uint32_t fresh;    /* slots never used so far (handed out in order) */
    uint32_t *freed;   /* freed slots, a ring in the order they were freed */
    uint32_t first, count;
    pg_slot_t *slots;
} pg_class_t;

static struct {
    mt_lock_t lock;
    bool frozen, reserved, failed;
    bool all;
    size_t page, slots_max, sampled_live;
    /* Blocks whose pages are open now, and the most there may be: each splits the region's
     * mapping in three (two more mappings), and the kernel allows a process
     * vm.max_map_count mappings in all; past them every mmap fails, the C library's and
     * the tracker's own included. Page guards take at most half of the limit. */
    size_t open_now, open_max, map_limit;
    bool limit_told;
    unsigned nclasses;
    pg_class_t classes[CLASSES_MAX];
    char sites[MT_OPTION_STRING_MAX]; /* page_guard_site, frozen */
    unsigned char *site_choice;       /* per site id: 0 not known yet, 1 no, 2 yes */
} pg;

static MT_TLS uint64_t rng; /* this thread's sampling state (xorshift64*) */

static void warn_once(const char *what)
{
    mt_buf_t b;
    mt_warning_begin(&b);
    mt_buf_str(&b, "page guards unavailable: ");
    mt_buf_str(&b, what);
    mt_warning_end(&b);
}

/* ---- which blocks ---------------------------------------------------------------------- */

bool mt_page_guard_enabled(void)
{
    return MT_HAVE_PAGE_GUARDS &&
           (mt_opt.page_guard_rate != 0 || mt_opt.page_guard_site[0] != '\0' ||
            mt_opt.page_guard[0] != '\0');
}

void mt_page_guard_freeze(void)
{
    if (pg.frozen)
        return;
    pg.frozen = true;
    if (!MT_HAVE_PAGE_GUARDS) { /* asked for by name: say why there are none */
        if (mt_opt.page_guard[0] != '\0' || mt_opt.page_guard_site[0] != '\0')
            warn_once("this platform has no handler for their faults");
        return;
    }
    pg.all = strcmp(mt_opt.page_guard, "all") == 0;
    mt_page_guard_start = strcmp(mt_opt.page_guard_side, "start") == 0;
    pg.slots_max = mt_opt.page_guard_slots;
    strcpy(pg.sites, mt_opt.page_guard_site);
    if (pg.sites[0] != '\0')
        pg.site_choice = mt_pages_alloc(SITE_CACHE);
    if (pg.all || pg.sites[0] != '\0') /* (api/fail.c may have asked for it already) */
        mt_pg_every_call = true;
}

void mt_page_guard_every_call(void)
{
    mt_pg_every_call = true;
}

static uint64_t next_random(void)
{
    if (MT_UNLIKELY(rng == 0)) {
        uint64_t seed = mt_opt.page_guard_seed;
        if (seed == 0) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            seed = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30) ^ (uint64_t)getpid() ^
                   (uint64_t)(uintptr_t)&rng;
        }
        rng = (seed + mt_thread()) * UINT64_C(0x9E3779B97F4A7C15) | 1;
    }
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * UINT64_C(0x2545F4914F6CDD1D);
}

/* Allocations until the next sample, that one included: on average the rate. A thread's
 * first sample comes after its first `rate` allocations, so a short program (a test that
 * overruns a block on purpose) is never sampled by default. */
static size_t next_gap(size_t rate, bool first)
{
    if (rate <= 1)
        return 1;
    if (first)
        return rate + 1 + (size_t)(next_random() % rate);
    return 1 + (size_t)(next_random() % (2 * rate - 1));
}

static bool site_listed(uint32_t site)
{
    if (pg.sites[0] == '\0')
        return false;
    if (pg.site_choice != NULL && site < SITE_CACHE && pg.site_choice[site] != 0)
        return pg.site_choice[site] == 2;
    mt_place_t p;
    mt_busy++; /* a site known by address is symbolized: libdw allocates */
    (void)mt_place_of(site, &p);
    mt_busy--;
    bool chosen = mt_place_listed(pg.sites, p.file, p.line);
    if (pg.site_choice != NULL && site < SITE_CACHE)
        pg.site_choice[site] = chosen ? 2 : 1;
    return chosen;
}

bool mt_page_guard_choose(uint32_t site)
{
    size_t rate = MT_HAVE_PAGE_GUARDS ? mt_opt.page_guard_rate : 0;
    size_t n = mt_pg_every_call ? sample_countdown : mt_pg_countdown;
    bool sample = false;
    if (rate == 0) {
        n = SIZE_MAX; /* never again: the rate is fixed with the layout */
    } else {
        if (n == 0 || n == SIZE_MAX)
            n = next_gap(rate, true);
        if (n <= 1) {
            sample = true;
            n = next_gap(rate, false) + 1;
        }
        n--;
    }
    if (!mt_pg_every_call) {
        mt_pg_countdown = n;
        return sample;
    }
    sample_countdown = n;
    mt_pg_countdown = 1;
    return sample || pg.all || site_listed(site);
}

/* ---- the region -------------------------------------------------------------------------- */

/* Says once that page guards have reached their share of the mappings (kernel: the kernel
 * refused one before that). Called with no lock held. */
static void tell_limit(bool kernel)
{
    mt_buf_t b;
    mt_warning_begin(&b);
    mt_buf_str(&b, "page guards: ");
    if (kernel) {
        mt_buf_str(&b, "the kernel refused more mappings");
    } else {
        mt_buf_u64(&b, pg.open_max);
        mt_buf_str(&b, " page-guarded blocks at once take half of the kernel's limit on "
                       "mappings");
    }
    mt_buf_fmt(&b,
               " (vm.max_map_count = %" PRIu64
               "): more blocks get guard bytes instead until some are freed",
               (uint64_t)pg.map_limit);
    mt_warning_end(&b);
}

/* Reserves the region and the slots' records (the pool's lock held; once). */
static bool reserve_locked(void)
{
    if (pg.reserved || pg.failed)
        return pg.reserved;
    pg.failed = true;
    pg.page = (size_t)sysconf(_SC_PAGESIZE);
    size_t page = pg.page, total = 0;
    bool chosen = pg.all || pg.sites[0] != '\0'; /* (not mt_pg_every_call: api/fail.c sets it) */
    pg.nclasses = chosen ? CLASSES_MAX : 1;
    for (unsigned c = 0; c < pg.nclasses; c++) {
        pg_class_t *k = &pg.classes[c];
        k->pages = (size_t)1 << c;
        k->stride = (k->pages + 1) * page;
        size_t cap = chosen ? CLASS_SPAN / k->stride : pg.slots_max;
        k->capacity = (uint32_t)(cap == 0 ? 1 : cap > (1u << 20) ? (1u << 20) : cap);
        total += k->capacity * k->stride + page;
    }
    void *region = mt_os_map(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
    if (region == MAP_FAILED) {
        warn_once("the address space for them could not be reserved");
        return false;
    }
    uintptr_t at = (uintptr_t)region;
    for (unsigned c = 0; c < pg.nclasses; c++) {
        pg_class_t *k = &pg.classes[c];
        k->base = at;
        at += k->capacity * k->stride + page;
        k->slots = mt_pages_alloc(k->capacity * sizeof(pg_slot_t));
        k->freed = mt_pages_alloc(k->capacity * sizeof(uint32_t));
        if (k->slots == NULL || k->freed == NULL) {
            warn_once("no memory for their records");
            return false;
        }
    }
    pg.map_limit = mt_map_limit();
    pg.open_max = pg.map_limit / 4; /* two mappings a block: half of the limit */
    pg.reserved = true;
    pg.failed = false;
    mt_pg_start = (uintptr_t)region;
    __atomic_store_n(&mt_pg_size, total, __ATOMIC_RELEASE);
    return true;
}

/* The class and slot of an address of the region; false when outside every slot. */
static bool slot_at(uintptr_t addr, pg_class_t **kp, uint32_t *slot, bool *in_guard)
{
    for (unsigned c = 0; c < pg.nclasses; c++) {
        pg_class_t *k = &pg.classes[c];
        if (addr < k->base || addr >= k->base + k->capacity * k->stride + pg.page)
            continue;
        size_t rel = addr - k->base;
        *kp = k;
        *slot = (uint32_t)(rel / k->stride);
        *in_guard = rel % k->stride < pg.page;
        return true;
    }
    return false;
}

static unsigned char *slot_data(const pg_class_t *k, uint32_t slot)
{
    return (unsigned char *)(k->base + slot * k->stride + pg.page);
}

/* Opens pages, or gives their memory back to the kernel and closes them. Only closing
 * costs a flush of the TLBs (tens of microseconds in a virtual machine): opening pages
 * that hold no memory changes no entry. */
static bool open_pages(void *at, size_t len)
{
    return mt_os_protect(at, len, PROT_READ | PROT_WRITE) == 0;
}

static void close_pages(void *at, size_t len)
{
    (void)madvise(at, len, MADV_DONTNEED); /* zero when opened again */
    (void)mt_os_protect(at, len, PROT_NONE);
}

/* ---- blocks -------------------------------------------------------------------------------- */

void *mt_page_guard_alloc(size_t size, size_t align, uint32_t site)
{
    bool listed = site_listed(site), sampled = !listed && !pg.all;
    size_t front = mt_front_size(mt_guard_bytes, align);
    mt_kind_t kind = mt_site_get(site)->kind;
    bool exact = listed || kind == MT_KIND_POOL;
    /* (an alignment the program asked for is kept as a sampled block's: it counts on it) */
    bool asked = kind == MT_KIND_ALIGNED_ALLOC || kind == MT_KIND_POSIX_MEMALIGN ||
                 kind == MT_KIND_MEMALIGN || kind == MT_KIND_VALLOC;
    size_t a = mt_page_guard_alignment(size, align,
                                       sampled || asked ? MT_PG_SAMPLED
                                       : exact          ? MT_PG_EXACT
                                                        : MT_PG_EVERY);
    mt_lock(&pg.lock);
    if (!reserve_locked() || (sampled && pg.sampled_live >= pg.slots_max)) {
        mt_unlock(&pg.lock);
        return NULL;
    }
    if (pg.open_now >= pg.open_max) { /* guard bytes instead, told once */
        bool tell = !pg.limit_told;
        pg.limit_told = true;
        mt_unlock(&pg.lock);
        if (tell)
            tell_limit(false);
        return NULL;
    }
    size_t page = pg.page;
    size_t need = mt_page_guard_start ? (size != 0 ? size : 1) : size + a - 1 + front;
    if (mt_page_guard_start && a > page)
        need = SIZE_MAX; /* a page boundary is all the alignment the start side gives */
    unsigned c = 0;
    while (c < pg.nclasses && pg.classes[c].pages * page < need)
        c++;
    pg_class_t *k = &pg.classes[c < pg.nclasses ? c : 0];
    uint32_t slot = UINT32_MAX;
    if (c == pg.nclasses) {
        /* too big for a page-guarded block */
    } else if (k->fresh < k->capacity) {
        slot = k->fresh++;
    } else if (k->count != 0) {
        slot = k->freed[k->first];
        k->first = (k->first + 1) % k->capacity;
        k->count--;
    }
    if (slot == UINT32_MAX) {
        mt_unlock(&pg.lock);
        return NULL;
    }
    pg_slot_t *s = &k->slots[slot];
    s->state = SLOT_LIVE;
    s->sampled = sampled;
    s->reported = false;
    pg.sampled_live += sampled;
    pg.open_now++;
    unsigned char *data = slot_data(k, slot), *end = data + k->pages * page;
    unsigned char *user =
        mt_page_guard_start ? data : (unsigned char *)((uintptr_t)(end - size) & ~(a - 1));
    s->user = (uintptr_t)user;
    s->size = size;
    mt_unlock(&pg.lock);
    mt_pg_load_unwinder();

    if (!open_pages(data, k->pages * page)) { /* the kernel's limit on mappings */
        mt_lock(&pg.lock);
        s->state = SLOT_UNUSED;
        pg.sampled_live -= sampled;
        pg.open_now--;
        k->freed[(k->first + k->count++) % k->capacity] = slot;
        bool tell = !pg.limit_told;
        pg.limit_told = true;
        mt_unlock(&pg.lock);
        if (tell)
            tell_limit(true);
        return NULL;
    }
    if (!mt_page_guard_start)
        memset(user - front, MT_GUARD_BYTE, front);
    memset(user + size, MT_GUARD_BYTE, (size_t)(end - user) - size); /* the pad, if any */
    return user;
}

void mt_page_guard_retire_locked(const mt_block_t *b)
{
    pg_class_t *k;
    uint32_t slot;
    bool in_guard;
    if (!slot_at(mt_block_addr(b), &k, &slot, &in_guard) || in_guard)
        return;
    pg_slot_t *s = &k->slots[slot];
    mt_lock(&pg.lock);
    s->record = *b;
    s->state = SLOT_FREED;
    s->reported = false;
    pg.sampled_live -= s->sampled;
    mt_unlock(&pg.lock);
}

void mt_page_guard_free(const mt_block_t *b)
{
    pg_class_t *k;
    uint32_t slot;
    bool in_guard;
    if (!slot_at(mt_block_addr(b), &k, &slot, &in_guard) || in_guard)
        return;
    unsigned char *data = slot_data(k, slot);
    size_t len = k->pages * pg.page;
    /* The guard page on the guarded side too: a fault may have opened it. */
    close_pages(mt_page_guard_start ? data - pg.page : data, len + pg.page);
    mt_lock(&pg.lock);
    pg.open_now--;
    k->freed[(k->first + k->count++) % k->capacity] = slot;
    mt_unlock(&pg.lock);
}

bool mt_page_guard_freed_record(const void *ptr, mt_block_t *out)
{
    pg_class_t *k;
    uint32_t slot;
    bool in_guard;
    if (!slot_at((uintptr_t)ptr, &k, &slot, &in_guard) || in_guard)
        return false;
    mt_lock(&pg.lock);
    const pg_slot_t *s = &k->slots[slot];
    bool freed = s->state == SLOT_FREED && mt_block_addr(&s->record) == (uintptr_t)ptr;
    if (freed)
        *out = s->record;
    mt_unlock(&pg.lock);
    return freed;
}

bool mt_page_guard_freed_again(const void *ptr, uint32_t site)
{
    pg_class_t *k;
    uint32_t slot;
    bool in_guard;
    if (!slot_at((uintptr_t)ptr, &k, &slot, &in_guard) || in_guard)
        return false;
    mt_block_t copy;
    mt_lock(&pg.lock);
    pg_slot_t *s = &k->slots[slot];
    uintptr_t start = mt_block_addr(&s->record);
    bool freed = s->state == SLOT_FREED && (uintptr_t)ptr - start <= s->record.size;
    if (freed)
        copy = s->record;
    mt_unlock(&pg.lock);
    if (!freed)
        return false;
    if ((uintptr_t)ptr == start) {
        mt_error_double_free(&copy, site);
        return true;
    }
    mt_error_t e; /* a pointer inside it, as foreign.c tells one inside a block in quarantine */
    mt_error_init(&e, MT_ERROR_INVALID_FREE, &copy, site);
    e.what = MT_POINTER_INSIDE_FREED;
    e.free_site = copy.free_site;
    e.pointer = (uintptr_t)ptr;
    e.offset = (int64_t)((uintptr_t)ptr - start);
    mt_error_report(&e);
    return true;
}

bool mt_page_guard_damaged(const mt_block_t *b, mt_guard_damage_t *under, mt_guard_damage_t *over)
{
    pg_class_t *k;
    uint32_t slot;
    bool in_guard;
    const unsigned char *user = (const unsigned char *)mt_block_addr(b);
    memset(under, 0, sizeof *under);
    memset(over, 0, sizeof *over);
    if (mt_guard_bytes == 0 || !slot_at(mt_block_addr(b), &k, &slot, &in_guard) || in_guard)
        return false; /* guard=0: no guard bytes checked, the page still faults */
    const unsigned char *end = slot_data(k, slot) + k->pages * pg.page;
    size_t first = 0, last = 0, front = mt_page_guard_start ? 0 : mt_block_front_of(b);
    under->changed = mt_pattern_scan(user - front, front, MT_GUARD_BYTE, &first, &last);
    under->extent = under->changed != 0 ? front - first : 0;
    size_t pad = (size_t)(end - user) - b->size;
    over->changed = mt_pattern_scan(user + b->size, pad, MT_GUARD_BYTE, &first, &last);
    over->extent = over->changed != 0 ? last + 1 : 0;
    return under->changed != 0 || over->changed != 0;
}

void mt_page_guard_lock(void)
{
    mt_lock(&pg.lock);
}

void mt_page_guard_unlock(void)
{
    mt_unlock(&pg.lock);
}

/* ---- the fault ------------------------------------------------------------------------------ */

int mt_page_guard_fault(void *addr_ptr, void *context)
{
    uintptr_t addr = (uintptr_t)addr_ptr;
    pg_class_t *k;
    uint32_t slot;
    bool in_guard;
    if (!mt_page_guarded(addr) || !slot_at(addr, &k, &slot, &in_guard))
        return 0;
    bool locked = mt_trylock(&pg.lock); /* never held across an access of the program's */
    mt_error_kind_t kind = MT_ERROR_OVERRUN;
    pg_slot_t *s = NULL;
    if (in_guard) {
        /* The guard page before slot `slot`: its own underrun, or the overrun of the one
         * before, whichever side is guarded first. */
        pg_slot_t *before = slot > 0 ? &k->slots[slot - 1] : NULL;
        pg_slot_t *after = slot < k->capacity ? &k->slots[slot] : NULL;
        bool before_live = before != NULL && before->state == SLOT_LIVE;
        bool after_live = after != NULL && after->state == SLOT_LIVE;
        if (before_live && (!mt_page_guard_start || !after_live))
            s = before;
        else if (after_live)
            s = after, kind = MT_ERROR_UNDERRUN;
    } else if (k->slots[slot].state == SLOT_FREED) {
        s = &k->slots[slot];
        kind = MT_ERROR_USE_AFTER_FREE;
    }
    if (s == NULL) {
        if (locked)
            mt_unlock(&pg.lock);
        return 0; /* a wild access into the region: the crash report tells what it can */
    }
    bool first = !s->reported;
    s->reported = true;
    mt_block_t block = s->record;
    uintptr_t user = s->user;
    size_t size = s->size;
    if (locked)
        mt_unlock(&pg.lock);

    /* Open the page, so the access can run again (unless the program is to stop there).
     * A block used after free is opened whole and filled as a freed block in quarantine
     * is. */
    bool stop = mt_opt.page_guard_stop != 0;
    uintptr_t page_at = addr & ~(uintptr_t)(pg.page - 1);
    if (stop) {
        /* the access faults again once the handler has put the default action back */
    } else if (kind == MT_ERROR_USE_AFTER_FREE) {
        unsigned char *data = slot_data(k, slot);
        if (open_pages(data, k->pages * pg.page))
            memset(data, MT_FREE_FILL_BYTE, k->pages * pg.page);
    } else {
        (void)open_pages((void *)page_at, pg.page);
    }
    if (!first)
        return stop ? 2 : 1;

    mt_busy++; /* the C library's memory for libdw and the loader, not the tracker's */
    if (kind != MT_ERROR_USE_AFTER_FREE && !mt_pg_live_record(user, &block)) {
        memset(&block, 0, sizeof block);
        mt_block_set_addr(&block, user);
        block.size = size;
    }
    mt_error_t e;
    mt_error_init(&e, kind, &block, mt_pg_access_site(mt_pg_fault_pc(context)));
    if (kind == MT_ERROR_USE_AFTER_FREE)
        e.free_site = block.free_site;
    e.offset = (int64_t)(addr - user);
    e.access = mt_pg_fault_access(context);
    mt_error_report(&e);
    mt_busy--;
    if (stop) {
        mt_pg_print_stop();
        return 2;
    }
    return 1;
}
