/* register.c - blocks whose memory a pool, an arena or the program's own allocator owns.
 *
 * A pool object, an arena allocation or a block the program registers with
 * memtrack_register_alloc() gets a record in the same table as a malloc'd block, so it is
 * in the same report, the same statistics and the same guard checks. What differs is who
 * releases the memory: the record is flagged MT_META_FLAG_OWNED, and free() or realloc()
 * of such a block is reported (mt_owned_misuse) instead of being handed to the C library.
 * Registered blocks have no guard bytes: their layout is the registrar's.
 *
 * This file also keeps the owner names (interned: a site keeps its owner's pointer after
 * the pool is gone) and the list of tracked pools and arenas, whose released memory the
 * exit-time check looks at.
 */
#include <errno.h>
#include <string.h>

#include "base/lock.h"
#include "api/api.h"
#include "api/owned.h"
#include "api/owned_log.h"
#include "base/memory.h"
#include "checks/page_guard.h"
#include "records/stats.h"

static struct {
    pthread_mutex_t lock;
    mt_owner_t *owners;  /* tracked pools and arenas, newest first */
    atomic_size_t count; /* of owners, read without the lock */
    struct name_node *names;
} owners = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- owner names --------------------------------------------------------------------- */

typedef struct name_node {
    struct name_node *next;
    char text[]; /* the name, NUL-terminated */
} name_node_t;

const char *mt_owner_intern(const char *name)
{
    if (name == NULL)
        return NULL;
    /* A linear list: programs have a handful of pools and arenas, made at load time. */
    mt_mutex_lock(&owners.lock);
    name_node_t *n = owners.names;
    while (n != NULL && strcmp(n->text, name) != 0)
        n = n->next;
    if (n == NULL) {
        size_t len = strlen(name) + 1;
        n = mt_mem_alloc(sizeof *n + len);
        if (n != NULL) {
            memcpy(n->text, name, len);
            n->next = owners.names;
            owners.names = n;
        }
    }
    mt_mutex_unlock(&owners.lock);
    return n != NULL ? n->text : "?";
}

uint32_t mt_owned_site(const char *file, int line, const char *func, void *pc, mt_kind_t kind,
                       const char *owner, uint32_t stack)
{
    if (file != NULL)
        return mt_site_stacked(file, line, func, kind, owner, stack);
    return mt_site_pc_stacked(pc, kind, owner, stack);
}

/* ---- records ------------------------------------------------------------------------- */

bool mt_owned_insert(const void *user, size_t size, size_t align, uint32_t site, uint64_t *seq)
{
    /* (a site of no owned kind is the tracker's bug, not the program's: asserted, not read
     * on every allocation) */
    if (MT_UNLIKELY(mt_reentered()) || site == MT_SITE_NONE)
        return false;
    MT_ASSERT(mt_kind_owned(mt_site_get(site)->kind));
    mt_stat_slot_t *counter;
    uint64_t n;
    uint64_t meta = mt_owned_meta(align, &counter, &n);
    if (!mt_table_track((uintptr_t)user, size, meta, site))
        return false;
    mt_stats_alloc_in(counter, size);
    *seq = n;
    return true;
}

bool mt_owned_publish(const void *user, size_t size, uint64_t meta, uint32_t site)
{
    if (mt_table_track((uintptr_t)user, size, meta, site))
        return true;
    mt_stats_free(size);
    return false;
}

void mt_owned_unlog(size_t bytes, size_t blocks)
{
    mt_stats_free_many(bytes, blocks);
}

/* The common case of a pool object's or an arena allocation's release: guards of bytes
 * (not a page-guarded block's) all the pattern. The full check (mt_check_block), which
 * owned blocks always took, locates what changed; this answer costs a tenth of it
 * (tools/bench/README.md, "Pools and arenas"). */
static bool guards_plainly_intact(const mt_block_t *b)
{
    return !mt_page_guarded(mt_block_addr(b)) && mt_guards_intact(b, mt_block_front_of(b));
}

/* mt_owned_remove, for a block with guard bytes (a pool's, an arena's) or without (a
 * registrar's: the full check knows it by its site and reads none of its neighbours).
 * paged: the block is page-guarded (its owner knows, api/owned_paged.c). */
static inline __attribute__((always_inline)) bool
remove_owned(const void *user, uint32_t found_site, mt_block_t *out, bool guarded, bool paged)
{
    mt_block_t copy;
    mt_shard_t *s = mt_shard_of((uintptr_t)user);
    if (MT_UNLIKELY(mt_reentered()))
        return false;
    /* The guard check reads only the block and may print: it runs under the shard's lock
     * as memtrack_check() does (shard -> errors -> out is the lock order). */
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_owned_locked(s, (uintptr_t)user);
    size_t size = 0;
    if (b != NULL) {
        if (!guarded || !guards_plainly_intact(b))
            (void)mt_check_block_locked(b, found_site);
        if (paged) { /* its record stays in its slot, released (page_guard.h) */
            b->free_site = found_site;
            mt_page_guard_retire_locked(b);
            if (out == NULL)
                out = &copy; /* (the pages are let go from the copy) */
        }
        size = b->size;
        if (out != NULL) /* (a record's copy is a cache line: only when asked for) */
            *out = *b;
        mt_table_remove_locked(s, b);
        mt_record_recycle_locked(s, b);
    }
    mt_unlock(&s->lock);
    if (paged && b != NULL)
        mt_page_guard_free(out);
    if (b != NULL)
        mt_stats_free(size);
    return b != NULL;
}

bool mt_owned_remove(const void *user, uint32_t found_site, mt_block_t *out)
{
    return remove_owned(user, found_site, out, true, false);
}

bool mt_owned_remove_paged(const void *user, uint32_t found_site, mt_block_t *out)
{
    return remove_owned(user, found_site, out, true, true);
}

int mt_owned_check(const void *user, uint32_t found_site)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)user);
    int damaged = 0;
    if (MT_UNLIKELY(mt_reentered()))
        return 0;
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_owned_locked(s, (uintptr_t)user);
    if (b != NULL)
        damaged = mt_check_block_locked(b, found_site);
    mt_unlock(&s->lock);
    return damaged;
}

/* A copy of the record at addr: of twins (a chunk and the block registered at its start),
 * the registered one when owned, else the one a free() would take. */
static bool peek(const void *addr, bool owned, mt_block_t *out)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)addr);
    if (MT_UNLIKELY(mt_reentered()))
        return false;
    mt_lock(&s->lock);
    mt_block_t *b = owned ? mt_table_find_owned_locked(s, (uintptr_t)addr)
                          : mt_table_find_locked(s, (uintptr_t)addr);
    if (b != NULL)
        *out = *b;
    mt_unlock(&s->lock);
    return b != NULL;
}

bool mt_block_peek(const void *addr, mt_block_t *out)
{
    return peek(addr, false, out);
}

void mt_owned_misuse(const mt_block_t *b, uint32_t found_site)
{
    mt_error_t e = {.kind = MT_ERROR_OWNED_FREE, .found_site = found_site};
    mt_error_from_block(&e, b);
    mt_error_report(&e);
}

/* ---- tracked pools and arenas ---------------------------------------------------------- */

void mt_owner_add(mt_owner_t *o)
{
    mt_mutex_lock(&owners.lock);
    o->listed = true;
    o->prev = NULL;
    o->next = owners.owners;
    if (owners.owners != NULL)
        owners.owners->prev = o;
    owners.owners = o;
    atomic_fetch_add(&owners.count, 1);
    mt_mutex_unlock(&owners.lock);
}

bool mt_owner_lock(mt_lock_t *l)
{
    if (MT_UNLIKELY(mt_reentered()))
        return mt_trylock(l);
    mt_lock(l);
    return true;
}

void mt_owner_unlock(mt_lock_t *l)
{
    mt_unlock(l);
}

void mt_owner_remove(mt_owner_t *o)
{
    mt_mutex_lock(&owners.lock);
    if (!o->listed) { /* a pool whose creation failed half way */
        mt_mutex_unlock(&owners.lock);
        return;
    }
    o->listed = false;
    if (o->prev != NULL)
        o->prev->next = o->next;
    else if (owners.owners == o)
        owners.owners = o->next;
    if (o->next != NULL)
        o->next->prev = o->prev;
    o->next = o->prev = NULL;
    atomic_fetch_sub(&owners.count, 1);
    mt_mutex_unlock(&owners.lock);
}

bool mt_owned_memory_misuse(const void *ptr, uint32_t found_site)
{
    const char *name = NULL;
    mt_kind_t kind = MT_KIND_NONE;
    if (atomic_load_explicit(&owners.count, memory_order_relaxed) == 0)
        return false; /* the common case: tracked code freeing a library's block */
    mt_mutex_lock(&owners.lock);
    for (mt_owner_t *o = owners.owners; o != NULL; o = o->next) {
        if (o->contains(o, (uintptr_t)ptr)) {
            name = o->name;
            kind = o->kind;
            if (o->publish != NULL) /* a live block it only logged: named as any owned one */
                o->publish(o);
            break;
        }
    }
    mt_mutex_unlock(&owners.lock);
    if (kind == MT_KIND_NONE)
        return false;
    mt_block_t b;
    if (mt_block_peek(ptr, &b) && (b.meta & MT_META_FLAG_OWNED)) {
        mt_owned_misuse(&b, found_site);
        return true;
    }
    mt_error_t e = {.kind = MT_ERROR_OWNED_FREE,
                    .addr = (uintptr_t)ptr,
                    .alloc_site = mt_site_id(NULL, 0, NULL, kind, name),
                    .found_site = found_site};
    mt_error_report(&e);
    return true;
}

void mt_owners_publish(void)
{
    if (atomic_load_explicit(&owners.count, memory_order_relaxed) == 0)
        return;
    /* Inside the tracker (a signal handler) this thread may hold the lock: only try it. */
    if (mt_reentered()) {
        if (mt_mutex_trylock(&owners.lock) != 0)
            return;
    } else {
        mt_mutex_lock(&owners.lock);
    }
    for (mt_owner_t *o = owners.owners; o != NULL; o = o->next)
        if (o->publish != NULL)
            o->publish(o);
    mt_mutex_unlock(&owners.lock);
}

int mt_owners_check(uint32_t found_site)
{
    int problems = 0;
    /* At exit another thread may still hold the lock (or died holding it): skip then. */
    if (mt_mutex_trylock(&owners.lock) != 0)
        return 0;
    for (mt_owner_t *o = owners.owners; o != NULL; o = o->next) {
        if (o->publish != NULL)
            o->publish(o);
        problems += o->check(o, found_site);
    }
    mt_mutex_unlock(&owners.lock);
    return problems;
}

void mt_owners_lock_all(void)
{
    mt_mutex_lock(&owners.lock);
}

void mt_owners_unlock_all(void)
{
    mt_mutex_unlock(&owners.lock);
}

/* ---- the program's own allocators: memtrack_register_alloc / _free ------------------- */

/* A block a registered one may start at: the program's own malloc'd (or new'd), live. */
static bool carved_from(const mt_block_t *b)
{
    return !(b->meta & (MT_META_FLAG_OWNED | MT_META_FLAG_FREED));
}

static void register_alloc(const void *ptr, size_t size, const char *owner, uint32_t site,
                           uint32_t found_site)
{
    mt_block_t old;
    uint64_t seq;
    if (ptr == NULL)
        return;
    /* The table is keyed on the address: a block already there keeps it, but for the
     * chunk a registrar carves, whose first piece starts where it does: the two records
     * are twins (records/table.h), the piece's owned, so free() finds the chunk and
     * memtrack_register_free() the piece. */
    if (peek(ptr, true, &old) || (mt_block_peek(ptr, &old) && !carved_from(&old))) {
        mt_error_t e = {
            .kind = MT_ERROR_REGISTER_CONFLICT, .found_site = found_site, .extent = size};
        mt_error_from_block(&e, &old);
        mt_error_report(&e);
        return;
    }
    (void)mt_owned_insert(ptr, size, 0, site, &seq);
}

/* Sites keep their own copies of names: compare the text. */
static bool same_owner(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void register_free(const void *ptr, uint32_t found_site)
{
    mt_block_t b;
    if (ptr == NULL)
        return;
    mt_error_t e = {
        .kind = MT_ERROR_UNREGISTER_UNKNOWN, .addr = (uintptr_t)ptr, .found_site = found_site};
    if (!peek(ptr, true, &b) && !mt_block_peek(ptr, &b)) {
        mt_error_report(&e);
        return;
    }
    const mt_site_t *made = mt_site_get(b.site);
    if (made->kind != MT_KIND_REGISTERED) { /* a malloc'd block, a pool's object... */
        mt_error_from_block(&e, &b);
        mt_error_report(&e);
        return;
    }
    if (!same_owner(made->owner, mt_site_get(found_site)->owner)) {
        e.kind = MT_ERROR_UNREGISTER_OWNER;
        mt_error_from_block(&e, &b);
        mt_error_report(&e);
        return;
    }
    (void)remove_owned(ptr, found_site, NULL, false, false);
}

/* Blocks registered by one owner that start in [lo, hi), noted a batch at a time: the
 * table is walked under its locks, where nothing may be taken out. */
#define RANGE_BATCH 128u
typedef struct range_batch {
    uintptr_t lo, hi;
    const char *owner;
    uintptr_t found[RANGE_BATCH];
    size_t n;
    bool more; /* the batch filled up: walk again */
} range_batch_t;

static void note_in_range(mt_block_t *b, void *ctx)
{
    range_batch_t *c = ctx;
    uintptr_t a = mt_block_addr(b);
    if (a - c->lo >= c->hi - c->lo || !(b->meta & MT_META_FLAG_OWNED))
        return;
    const mt_site_t *made = mt_site_get(b->site);
    if (made->kind != MT_KIND_REGISTERED || !same_owner(made->owner, c->owner))
        return;
    if (c->n == RANGE_BATCH)
        c->more = true;
    else
        c->found[c->n++] = a;
}

/* Releases every block the owner registered that starts in [start, start + size): a
 * chunk given back whole. One walk of the table per RANGE_BATCH blocks (each walk takes
 * out a full batch, so the walks end). */
static size_t register_free_range(const void *start, size_t size, const char *owner,
                                  uint32_t found_site)
{
    range_batch_t c = {.lo = (uintptr_t)start, .owner = owner};
    size_t released = 0;
    c.hi = size > UINTPTR_MAX - c.lo ? UINTPTR_MAX : c.lo + size;
    if (start == NULL || size == 0)
        return 0;
    do {
        c.n = 0;
        c.more = false;
        mt_table_foreach(note_in_range, &c);
        for (size_t i = 0; i < c.n; i++)
            released += remove_owned((const void *)c.found[i], found_site, NULL, false, false);
    } while (c.more && c.n > 0);
    return released;
}

/* An entry point's sites, from its place and the stack found there: a block's and a release's
 * from the stack's cache entry (api/owned.h), as malloc's are. */
#define AT_SITE(kind, name) mt_owned_site_found(file, line, func, NULL, MT_KIND_##kind, name, found)
#define PC_SITE(kind, name)                                                                        \
    mt_owned_site_found(NULL, 0, NULL, __builtin_return_address(0), MT_KIND_##kind, name, found)

MT_EXPORT void memtrack_register_alloc_at(const void *ptr, size_t size, const char *owner,
                                          const char *file, int line, const char *func)
{
    MT_ENTRY();
    mt_init();
    mt_stack_found_t found = MT_OWNED_FOUND();
    const char *name = mt_owner_intern(owner);
    register_alloc(ptr, size, name, AT_SITE(REGISTERED, name), AT_SITE(REGISTER, name));
}

MT_EXPORT void memtrack_register_free_at(const void *ptr, const char *owner, const char *file,
                                         int line, const char *func)
{
    MT_ENTRY();
    mt_init();
    mt_stack_found_t found = MT_OWNED_FOUND();
    register_free(ptr, AT_SITE(UNREGISTER, mt_owner_intern(owner)));
}

/* Called by name, `(memtrack_register_alloc)(...)`, from code built with MEMORY_CONTROL_ON
 * (without the flag the header makes them no-ops): the site is the caller's address. */
MT_EXPORT void memtrack_register_alloc(const void *ptr, size_t size, const char *owner)
{
    MT_ENTRY();
    mt_init();
    mt_stack_found_t found = MT_OWNED_FOUND();
    const char *name = mt_owner_intern(owner);
    register_alloc(ptr, size, name, PC_SITE(REGISTERED, name), PC_SITE(REGISTER, name));
}

MT_EXPORT void memtrack_register_free(const void *ptr, const char *owner)
{
    MT_ENTRY();
    mt_init();
    mt_stack_found_t found = MT_OWNED_FOUND();
    register_free(ptr, PC_SITE(UNREGISTER, mt_owner_intern(owner)));
}

MT_EXPORT size_t memtrack_register_free_range_at(const void *start, size_t size, const char *owner,
                                                 const char *file, int line, const char *func)
{
    MT_ENTRY();
    mt_init();
    mt_stack_found_t found = MT_OWNED_FOUND();
    const char *name = mt_owner_intern(owner);
    return register_free_range(start, size, name, AT_SITE(UNREGISTER, name));
}

MT_EXPORT size_t memtrack_register_free_range(const void *start, size_t size, const char *owner)
{
    MT_ENTRY();
    mt_init();
    mt_stack_found_t found = MT_OWNED_FOUND();
    const char *name = mt_owner_intern(owner);
    return register_free_range(start, size, name, PC_SITE(UNREGISTER, name));
}
