/* guard.c - the layout of a tracked block, its guard bytes and its fill patterns.
 *
 *   raw (from the C library)   user (what the program sees)      user + size
 *   |<-------- front -------->|<------------- size ------------->|<-- back -->|
 *   | front guard, 0xFD...    | data: 0xCD... when new (not      | back guard |
 *   | (at least `guard` bytes)|  calloc), the program's after    | 0xFD...    |
 *
 * front is `guard` rounded up to the block's alignment, so the user pointer keeps the
 * alignment malloc (16) or aligned_alloc gives; the back guard starts right after the
 * last requested byte, so a one-byte overrun lands in it. The pattern has no zero byte:
 * an overflow often writes one. The record lives elsewhere (table.c).
 *
 * One exception, for blocks made by the scalar operator new: the last 8 bytes of the
 * front guard (the "cookie slot") are zero. `delete[]` on such a block reads its element
 * count there, as if new[] had made it: it then finds 0, runs no destructor over the
 * guard, and hands the block to operator delete[], which reports the mismatch (cxx_blocks.c).
 */
#include <string.h>

#include "base/options.h"
#include "checks/guard.h"
#include "checks/page_guard.h"
#include "errors/error.h"
#include "records/site.h"

void mt_guard_fill_any(unsigned char *user, size_t size, size_t front, size_t back)
{
    memset(user - front, MT_GUARD_BYTE, front);
    memset(user + size, MT_GUARD_BYTE, back);
}

bool mt_guard_check(const unsigned char *user, size_t size, size_t front, size_t back,
                    mt_guard_damage_t *under, mt_guard_damage_t *over)
{
    size_t first = 0, last = 0;
    under->changed = mt_pattern_scan(user - front, front, MT_GUARD_BYTE, &first, &last);
    /* The farthest changed byte before the block is the lowest address. */
    under->extent = under->changed != 0 ? front - first : 0;
    over->changed = mt_pattern_scan(user + size, back, MT_GUARD_BYTE, &first, &last);
    over->extent = over->changed != 0 ? last + 1 : 0;
    return under->changed != 0 || over->changed != 0;
}

size_t mt_pattern_check(const unsigned char *p, size_t n, unsigned char byte, size_t *first)
{
    size_t last;
    return mt_pattern_scan(p, n, byte, first, &last);
}

/* ---- the C++ cookie slot -------------------------------------------------------------- */

void mt_guard_clear_cookie(unsigned char *user, size_t front)
{
    /* (at the start side a page-guarded block has no front guard: its page is before it) */
    if (front >= MT_COOKIE_SLOT && !(mt_page_guarded((uintptr_t)user) && mt_page_guard_start))
        memset(user - MT_COOKIE_SLOT, 0, MT_COOKIE_SLOT);
}

void mt_guard_recheck_cookie(const unsigned char *user, size_t front, mt_guard_damage_t *under)
{
    if (front < MT_COOKIE_SLOT)
        return;
    const unsigned char *slot = user - MT_COOKIE_SLOT;
    size_t first = 0, last = 0;
    under->changed =
        mt_pattern_scan(user - front, front - MT_COOKIE_SLOT, MT_GUARD_BYTE, &first, &last);
    under->extent = under->changed != 0 ? front - first : 0;
    /* All 0xFD: not cleared yet (a check racing with the new that made it). */
    size_t zeros = 0, fences = 0;
    for (size_t i = 0; i < MT_COOKIE_SLOT; i++) {
        zeros += slot[i] == 0;
        fences += slot[i] == MT_GUARD_BYTE;
    }
    if (zeros == MT_COOKIE_SLOT || fences == MT_COOKIE_SLOT)
        return;
    for (size_t i = 0; i < MT_COOKIE_SLOT; i++) {
        if (slot[i] == 0)
            continue;
        if (under->extent < MT_COOKIE_SLOT - i)
            under->extent = MT_COOKIE_SLOT - i;
        under->changed++;
    }
}

/* ---- fill patterns of whole blocks ---------------------------------------------------- */

#define ONES UINT64_C(0x0101010101010101)
#define LOW7 UINT64_C(0x7f7f7f7f7f7f7f7f)
#define HIGH UINT64_C(0x8080808080808080)

/* How many bytes of the word w equal the byte whose 8 copies are `rep`: exact, no carry
 * crosses from one byte to the next. */
static unsigned count_in_word(uint64_t w, uint64_t rep)
{
    uint64_t x = w ^ rep;                       /* matching bytes are now zero */
    uint64_t nonzero = ((x & LOW7) + LOW7) | x; /* high bit set in each nonzero byte */
    return 8u - (unsigned)__builtin_popcountll(nonzero & HIGH);
}

size_t mt_count_byte(const unsigned char *p, size_t n, unsigned char byte)
{
    uint64_t rep = ONES * byte;
    size_t count = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        count += count_in_word(w, rep);
    }
    for (; i < n; i++)
        count += p[i] == byte;
    return count;
}

size_t mt_fill_counting(unsigned char *p, size_t n, unsigned char fill, unsigned char counted)
{
    uint64_t rep = ONES * counted, fill_word = ONES * fill;
    size_t count = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        count += count_in_word(w, rep);
        memcpy(p + i, &fill_word, 8);
    }
    for (; i < n; i++) {
        count += p[i] == counted;
        p[i] = fill;
    }
    return count;
}

bool mt_pattern_intact(const unsigned char *p, size_t n, unsigned char byte)
{
    return mt_pattern_intact_inline(p, n, byte);
}

size_t mt_pattern_scan(const unsigned char *p, size_t n, unsigned char byte, size_t *first,
                       size_t *last)
{
    uint64_t rep = ONES * byte;
    size_t changed = 0;
    for (size_t i = 0; i < n;) {
        uint64_t w;
        if (i + 8 <= n) {
            memcpy(&w, p + i, 8);
            if (MT_LIKELY(w == rep)) { /* the common case: nothing changed here */
                i += 8;
                continue;
            }
        }
        size_t end = i + 8 <= n ? i + 8 : n;
        for (; i < end; i++) {
            if (p[i] != byte) {
                if (changed == 0)
                    *first = i;
                *last = i;
                changed++;
            }
        }
    }
    return changed;
}

/* ---- the layout, fixed when the first block is made ------------------------------------ */

size_t mt_guard_bytes;
size_t mt_guard_front;
size_t mt_guard_size_max = SIZE_MAX / 2; /* (no guards yet) */
bool mt_fill_new = true;
bool mt_fill_freed = true;
bool mt_fill_new_whole;

void mt_fill_new_large(unsigned char *at, size_t n)
{
    memset(at, MT_ALLOC_FILL_BYTE, mt_fill_new_whole ? n : MT_FILL_NEW_MAX);
}

void mt_layout_freeze(void)
{
    mt_guard_bytes = mt_opt.guard;
    mt_guard_front = mt_front_size(mt_guard_bytes, MT_MIN_ALIGN);
    mt_guard_size_max = SIZE_MAX / 2 - mt_guard_front - mt_guard_bytes;
    mt_fill_new = mt_opt.fill_new != 0;
    mt_fill_freed = mt_opt.fill_freed != 0;
    mt_fill_new_whole = mt_opt.unwritten != 0;
    mt_page_guard_freeze();
    atomic_store(&mt_options_frozen, true);
}

/* ---- guard damage ------------------------------------------------------------------------ */

/* ---- an overrun that runs on into the blocks after it ------------------------------------ */

#ifdef MT_GLIBC_MALLOC /* the layout below is glibc's */
/* The size of the C library's chunk that starts two words before raw (its size field is the
 * word before raw; words are size_t), or 0 for a chunk of its own mapping, which has no
 * neighbour. */
static size_t chunk_size_at(const unsigned char *raw)
{
    size_t field;
    memcpy(&field, raw - sizeof field, sizeof field);
    return (field & 2u) != 0 ? 0 : field & ~(size_t)7;
}

/* The chunk glibc gives for a request of n bytes (16-byte aligned, at least MINSIZE). */
static size_t chunk_for(size_t n)
{
    size_t size = (n + sizeof(size_t) + 15) & ~(size_t)15;
    size_t min = 4 * sizeof(size_t) > 16 ? 4 * sizeof(size_t) : 16;
    return size < min ? min : size;
}

/* Copies the live record at addr; with mark, also flags it as reported. */
static bool peek_live(uintptr_t addr, mt_block_t *out, bool mark)
{
    mt_shard_t *s = mt_shard_of(addr);
    if (MT_UNLIKELY(mt_in_crash)) {
        if (!mt_trylock(&s->lock)) /* the crashed thread may hold it */
            return false;
    } else {
        mt_lock(&s->lock);
    }
    mt_block_t *b = mt_table_find_locked(s, addr);
    if (b != NULL) {
        *out = *b;
        if (mark)
            b->meta |= MT_META_FLAG_REPORTED;
    }
    mt_unlock(&s->lock);
    return b != NULL;
}

size_t mt_overrun_spill(const mt_block_t *a, size_t *extent, size_t *changed, bool mark)
{
    size_t back = mt_guard_bytes, front = mt_block_front(4), spans = 0;
    if (back == 0 || mt_site_get(a->site)->kind == MT_KIND_REGISTERED ||
        mt_page_guarded(mt_block_addr(a)))
        return 0;
    /* A write that ran on changed every byte of a's back guard (a stray byte or two in it
     * is a bug of its own, and so is one in the next block's front guard). */
    size_t first;
    const unsigned char *a_back = (const unsigned char *)mt_block_addr(a) + a->size;
    if (mt_pattern_check(a_back, back, MT_GUARD_BYTE, &first) != back)
        return 0;
    const unsigned char *raw = mt_block_raw(mt_block_addr(a), a->meta);
    size_t chunk = chunk_size_at(raw);
    uintptr_t end = mt_block_addr(a) + a->size; /* where a's back guard starts */
    uintptr_t next = (uintptr_t)raw + chunk;    /* the next block's raw start, if tracked */
    while (chunk != 0 && spans < MT_SPILL_MAX) {
        mt_block_t b;
        mt_guard_damage_t under, over;
        if (!peek_live(next + front, &b, mark) || MT_META_ALIGN_SHIFT(b.meta) != 4 ||
            !mt_guard_check((const unsigned char *)next + front, b.size, front, back, &under,
                            &over) ||
            under.changed == 0 || under.extent != front ||
            mt_pattern_check((const unsigned char *)next, under.changed, MT_GUARD_BYTE, &first) !=
                under.changed)
            break; /* not a tracked block damaged from its first byte on, without a gap */
        spans++;
        *changed += under.changed;
        if (under.changed < front) { /* it ended in the front guard */
            *extent = next + under.changed - end;
            break;
        }
        if (over.changed == 0 || over.extent != back) { /* it ended in the block's bytes */
            *extent = next + front - end + over.extent;
            *changed += over.changed;
            break;
        }
        *changed += over.changed; /* through the whole block: on to the next one */
        *extent = next + front + b.size + back - end;
        next += chunk_for(front + b.size + back);
    }
    return spans;
}
#else
size_t mt_overrun_spill(const mt_block_t *a, size_t *extent, size_t *changed, bool mark)
{
    (void)a, (void)extent, (void)changed, (void)mark;
    return 0;
}
#endif

/* Spills worked out before a walk of the table (which holds each shard's lock while it
 * checks, so the lookups of mt_overrun_spill cannot run there). */
static MT_TLS const mt_spill_t *known_spills;
static MT_TLS size_t known_count;

void mt_spills_known(const mt_spill_t *spills, size_t n)
{
    known_spills = spills;
    known_count = n;
}

/* The run on of an overrun of b: worked out now when no lock is held, else as known. */
static size_t spill_of(const mt_block_t *b, size_t *extent, size_t *changed)
{
    if (mt_locks_held == 0)
        return mt_overrun_spill(b, extent, changed, true);
    for (size_t i = 0; i < known_count; i++) {
        if (known_spills[i].addr == mt_block_addr(b)) {
            *extent = known_spills[i].extent;
            *changed += known_spills[i].changed;
            return known_spills[i].spans;
        }
    }
    return 0;
}

void mt_report_guard_damage(const mt_block_t *b, uint32_t found_site,
                            const mt_guard_damage_t *under, const mt_guard_damage_t *over)
{
    mt_error_t e;
    mt_error_init(&e, MT_ERROR_UNDERRUN, b, found_site);
    if (under->changed != 0) {
        e.kind = MT_ERROR_UNDERRUN;
        e.changed = under->changed;
        e.extent = under->extent;
        mt_error_report(&e);
    }
    if (over->changed != 0) {
        e.kind = MT_ERROR_OVERRUN;
        e.changed = over->changed;
        e.extent = over->extent;
        if (over->extent == mt_guard_bytes) /* up to the guard's end: it may run on */
            e.spans = spill_of(b, &e.extent, &e.changed);
        mt_error_report(&e);
    }
}

/* The check itself, inlined into mt_check_block (every free runs it). */
static inline bool block_damaged(const mt_block_t *b, mt_guard_damage_t *under,
                                 mt_guard_damage_t *over)
{
    const unsigned char *user = (const unsigned char *)mt_block_addr(b);
    if (MT_UNLIKELY(b->meta & MT_META_FLAG_OWNED) &&
        mt_site_get(b->site)->kind == MT_KIND_REGISTERED)
        return false; /* a registrar's bytes, with no guards around */
    if (MT_UNLIKELY(mt_page_guarded((uintptr_t)user))) { /* one side is a page, not bytes */
        if (!mt_page_guard_damaged(b, under, over))
            return false;
    } else if (MT_LIKELY(!mt_guard_check(user, b->size, mt_block_front_of(b), mt_guard_bytes, under,
                                         over))) {
        return false;
    }
    mt_kind_t kind = mt_site_get(b->site)->kind; /* unknown if its site could not be made */
    if (under->changed != 0 && (kind == MT_KIND_NEW || kind == MT_KIND_NONE)) {
        mt_guard_recheck_cookie(user, mt_block_front_of(b), under); /* the zero slot */
        if (under->changed == 0 && over->changed == 0)
            return false;
    }
    return true;
}

bool mt_block_damaged(const mt_block_t *b, mt_guard_damage_t *under, mt_guard_damage_t *over)
{
    return block_damaged(b, under, over);
}

/* The common case of every free: a block of its own (not a registrar's, not page-guarded)
 * whose guards are all the pattern. Anything else (a C++ block's zero cookie slot too)
 * takes the full check, which locates and counts what changed. */
static inline bool plainly_intact(const mt_block_t *b)
{
    return !(b->meta & MT_META_FLAG_OWNED) && !mt_page_guarded(mt_block_addr(b)) &&
           mt_guards_intact(b, mt_block_front_of(b));
}

/* The full check, and the report: out of line, so the common case needs no stack frame. */
static MT_NOINLINE int check_block_full(const mt_block_t *b, uint32_t found_site)
{
    mt_guard_damage_t under, over;
    if (MT_LIKELY(!block_damaged(b, &under, &over)))
        return 0;
    if (!(b->meta & MT_META_FLAG_REPORTED))
        mt_report_guard_damage(b, found_site, &under, &over);
    return 1;
}

int mt_check_block(const mt_block_t *b, uint32_t found_site)
{
    if (MT_LIKELY(plainly_intact(b)))
        return 0;
    return check_block_full(b, found_site);
}

int mt_check_block_locked(mt_block_t *b, uint32_t found_site)
{
    int damaged = mt_check_block(b, found_site);
    if (damaged)
        b->meta |= MT_META_FLAG_REPORTED;
    return damaged;
}
