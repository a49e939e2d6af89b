/* crash_hint.c - what the crash report can tell of the access that crashed from memtrack's
 * own patterns: a pointer read from freed, released or never-written memory, or from a
 * guard, is a word of the pattern's bytes (0xdddddddddddddddd), often with a field's offset
 * added, and on x86-64 following it faults at no address at all (a general protection
 * fault: si_addr is 0). Where the kernel names the address (i686, arm64, any fault at a
 * mapped-out address) the address itself is held against the patterns; where it names
 * none, each general register of the signal's context is, and the first that holds such a
 * word is named in one line of the crash report.
 *
 * On arm64 the register the faulting load or store used is known from one fixed field of
 * the instruction, and is held first (qemu-user reports such a fault at address 0). On
 * x86-64 telling it would take decoding the instruction's prefixes and operands, so every
 * general register is held instead: one holding such a word by chance, the pattern in all
 * but its lowest bits, is unlikely enough, and registers are only read when the fault has
 * no address (a stale copy of a fill's byte beside a NULL dereference says nothing).
 *
 * A fault at a real address inside a block whose memory went back to the C library (too
 * big for the quarantine, or evicted from it, and unmapped since) is named as a page
 * guard names an access after free: the block, its allocation and its free, from the
 * shards' rings of such blocks (checks/quarantine.h). Released pool objects and reset
 * arena bytes stay mapped (their owner keeps the memory), so an access there never
 * faults: only a pointer read from them can, told by the pattern above.
 *
 * Runs in the crash handler: reads the context and the rings (their locks only tried)
 * and formats into fixed buffers, nothing else.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if !defined(_WIN32) && !defined(MT_BARE_METAL)
#include <ucontext.h>
#endif

#include "api/crash_hint.h"
#include "base/lock.h"
#include "base/probe.h"
#include "checks/guard.h"
#include "checks/page_guard_access.h"
#include "checks/quarantine.h"
#include "errors/error.h"

/* A field's offset from the pointer the program followed, either way (a member of a
 * struct, or container_of's step back to the struct holding one). */
#define HINT_OFFSET_MAX 4096

typedef struct {
    unsigned char byte;
    const char *read_from; /* "the crash follows a pointer read from ..." */
    const char *fill;      /* "...: memtrack's ..." */
} pattern_t;

static const pattern_t patterns[] = {
    {MT_FREE_FILL_BYTE, "freed or released memory", "fill of freed and released bytes"},
    {MT_ALLOC_FILL_BYTE, "memory never written since it was allocated", "fill of new blocks"},
    {MT_GUARD_BYTE, "a guard, past a block's end or before its start",
     "guard pattern around every block"},
};

/* The general registers of the interrupted code, from the signal's context: a small table
 * per architecture, in the order they are looked at. Where none is known, none. */
typedef struct {
    const char *name;
    uintptr_t value;
} reg_t;

#if !defined(_WIN32) && !defined(MT_BARE_METAL) && defined(__x86_64__) && defined(REG_RAX)
static const struct {
    const char *name;
    int index;
} gregs[] = {{"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX},
             {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"r8", REG_R8},
             {"r9", REG_R9},   {"r10", REG_R10}, {"r11", REG_R11}, {"r12", REG_R12},
             {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15}};
#define GREGS_OF(uc, i) ((uintptr_t)(uc)->uc_mcontext.gregs[gregs[i].index])
#elif !defined(_WIN32) && !defined(MT_BARE_METAL) && defined(__i386__) && defined(REG_EAX)
static const struct {
    const char *name;
    int index;
} gregs[] = {{"eax", REG_EAX}, {"ebx", REG_EBX}, {"ecx", REG_ECX}, {"edx", REG_EDX},
             {"esi", REG_ESI}, {"edi", REG_EDI}, {"ebp", REG_EBP}};
#define GREGS_OF(uc, i) ((uintptr_t)(uc)->uc_mcontext.gregs[gregs[i].index])
#elif !defined(_WIN32) && !defined(MT_BARE_METAL) && defined(__aarch64__)
static const struct {
    const char *name;
    int index;
} gregs[] = {{"x0", 0},   {"x1", 1},   {"x2", 2},   {"x3", 3},   {"x4", 4},   {"x5", 5},
             {"x6", 6},   {"x7", 7},   {"x8", 8},   {"x9", 9},   {"x10", 10}, {"x11", 11},
             {"x12", 12}, {"x13", 13}, {"x14", 14}, {"x15", 15}, {"x16", 16}, {"x17", 17},
             {"x18", 18}, {"x19", 19}, {"x20", 20}, {"x21", 21}, {"x22", 22}, {"x23", 23},
             {"x24", 24}, {"x25", 25}, {"x26", 26}, {"x27", 27}, {"x28", 28}, {"x29", 29}};
#define GREGS_OF(uc, i) ((uintptr_t)(uc)->uc_mcontext.regs[gregs[i].index])
#endif

#ifdef GREGS_OF
#define GREGS_COUNT (sizeof gregs / sizeof gregs[0])
static bool context_register(const void *context, unsigned i, reg_t *out)
{
    const ucontext_t *uc = context;
    if (context == NULL || i >= GREGS_COUNT)
        return false;
    out->name = gregs[i].name;
    out->value = GREGS_OF(uc, i);
    return true;
}
#else
static bool context_register(const void *context, unsigned i, reg_t *out)
{
    (void)context, (void)i, (void)out;
    return false; /* (no table for this target: the crash report has no hint) */
}
#endif

/* The base register of the faulting load or store, where one fixed field of the
 * instruction names it: every A64 load and store has it in bits 9-5 (31 is sp, never a
 * pattern). The instruction is read through the kernel (a fault at the pc itself leaves
 * nothing to read). False elsewhere, and for any other instruction. */
static bool access_base_register(const void *context, reg_t *out)
{
#if !defined(_WIN32) && !defined(MT_BARE_METAL) && defined(__aarch64__)
    const ucontext_t *uc = context;
    uint32_t insn;
    if (context == NULL || !mt_probe_read((uintptr_t)uc->uc_mcontext.pc, &insn, sizeof insn))
        return false;
    unsigned rn = (insn >> 5) & 31;
    if ((insn & 0x0a000000u) != 0x08000000u || rn >= GREGS_COUNT) /* not a load or store */
        return false;
    out->name = gregs[rn].name;
    out->value = GREGS_OF(uc, rn);
    return true;
#else
    (void)context, (void)out;
    return false;
#endif
}

/* The pattern v is a word of, give or take a field's offset (*offset), or NULL. */
static const pattern_t *pattern_of(uintptr_t v, intptr_t *offset)
{
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        uintptr_t word = (uintptr_t)UINT64_C(0x0101010101010101) * patterns[i].byte;
        intptr_t d = (intptr_t)(v - word); /* (unsigned: wraps, then read as signed) */
        if (d > -HINT_OFFSET_MAX && d < HINT_OFFSET_MAX) {
            *offset = d;
            return &patterns[i];
        }
    }
    return NULL;
}

/* The pattern the fault address is a word of, offset included. arm64 ignores an address's
 * top byte and the kernel reports it cleared: 0x00dd... there is 0xdd... followed. */
static const pattern_t *address_pattern(uintptr_t address, intptr_t *offset)
{
    const pattern_t *p = pattern_of(address, offset);
#if defined(__aarch64__)
    for (size_t i = 0;
         p == NULL && (address >> 56) == 0 && i < sizeof patterns / sizeof patterns[0]; i++)
        p = pattern_of(address | (uintptr_t)patterns[i].byte << 56, offset);
#endif
    return p;
}

bool mt_crash_hint(mt_buf_t *b, const void *context, bool has_address, uintptr_t address)
{
    reg_t r = {NULL, address};
    intptr_t offset = 0;
    const pattern_t *p = NULL;
    if (access_base_register(context, &r)) /* the register the access used (arm64) */
        p = pattern_of(r.value, &offset);
    if (p != NULL) {
        /* (named whatever the kernel said of the address: qemu-user says 0) */
    } else if (has_address) {
        r.name = NULL;
        r.value = address;
        /* The kernel named the address: a pattern followed is that address, and a register
         * holding one (a stale copy of a fill's byte) has nothing to do with the crash. */
        p = address_pattern(address, &offset);
    } else {
        for (unsigned i = 0; p == NULL && context_register(context, i, &r); i++)
            p = pattern_of(r.value, &offset);
    }
    if (p == NULL)
        return false;
    mt_buf_line(b);
    mt_buf_fmt(b, "  the crash follows a pointer read from %s: ", p->read_from);
    if (r.name != NULL)
        mt_buf_fmt(b, "register %s = ", r.name);
    else
        mt_buf_str(b, "the address ");
    mt_buf_hex(b, (uint64_t)r.value);
    mt_buf_fmt(b, " is memtrack's %s (0x%x)", p->fill, (unsigned)p->byte);
    if (offset != 0) { /* a field's offset, or container_of's step back */
        mt_buf_str(b, offset > 0 ? " plus " : " minus ");
        mt_buf_u64(b, (uint64_t)(offset > 0 ? offset : -offset));
    }
    mt_buf_char(b, '\n');
    return true;
}

/* ---- a fault inside a block whose memory went back to the C library ------------------ */

bool mt_crash_gone_block(uintptr_t address, mt_block_t *out)
{
    /* Every shard's ring (a large block may start in another shard's region), newest
     * first in each; a shard whose lock is taken is skipped (nothing waits here). Among
     * blocks that held the address at different times, the one freed last is told: its
     * memory is the one the program still had a pointer to. */
    bool found = false;
    uint64_t newest = 0;
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        if (!mt_trylock(&s->lock))
            continue;
        const struct mt_gone *g = s->gone;
        for (unsigned k = 1; g != NULL && k <= MT_GONE_MAX; k++) {
            const mt_gone_entry_t *e = &g->ring[(g->next - k) & (MT_GONE_MAX - 1)];
            if (e->addr == 0 || address < e->addr || address - e->addr >= e->size ||
                (found && MT_META_SEQ(e->meta) <= newest))
                continue;
            memset(out, 0, sizeof *out);
            mt_block_set_addr(out, e->addr);
            out->size = e->size;
            out->meta =
                e->meta & ~(MT_META_FLAG_PENDING | MT_META_FLAG_REPORTED | MT_META_FLAG_FREED);
            out->site = e->site;
            out->free_site = e->free_site;
            newest = MT_META_SEQ(e->meta);
            found = true;
            break; /* (the newest of this ring) */
        }
        mt_unlock(&s->lock);
    }
    return found;
}

void mt_crash_report_gone(const mt_block_t *gone, uintptr_t address, uint32_t access_site,
                          const void *context)
{
    mt_error_t e;
    mt_error_init(&e, MT_ERROR_USE_AFTER_FREE, gone, access_site);
    e.free_site = gone->free_site;
    e.offset = (int64_t)(address - mt_block_addr(gone));
    e.access = context != NULL ? mt_pg_fault_access(context) : ACCESS_UNKNOWN;
    mt_error_report(&e);
}
