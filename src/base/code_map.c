/* code_map.c - the executable segments of the loaded modules, for the stack walk.
 *
 * The fast unwinder (unwind.c) walks frame pointers. In code built without them the frame
 * register holds some other value, and when that happens to point into the stack the walk
 * reads whatever lies there as frame records: heap pointers, counters. Each such "stack"
 * differs from the last, so each made a new stack and a new site: a long-running program
 * grew the tracker's tables without bound (an interpreter loop built without frame
 * pointers: 14 MB after 200 000 steps, 38 MB after 2 million) and paid the global locks at
 * every allocation. A return address lies in some module's code; anything else ends the
 * stack there.
 *
 * Data can still look like a return address: a function pointer kept on the stack lies in
 * code too. A return address follows a call, so on x86-64 and arm64 the instruction that
 * ends there must be one (call_ends_at); a signal handler's return to the kernel's
 * trampoline (__restore_rt) is one too, so that a walk goes on into the interrupted code.
 *
 * The segments are a sorted snapshot taken from dl_iterate_phdr, searched by bisection.
 * This runs only when a stack is new to the process (records/stack.c's slow path), never
 * for one seen before. A module loaded later (dlopen) is found by comparing the loader's
 * count of loads and unloads when an address is outside the snapshot.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "base/code_map.h"

#define MAX_SEGMENTS MT_SMALL(512u, 8u)

typedef struct segment {
    uintptr_t start, end; /* [start, end) */
} segment_t;

static struct {
    bool taken;                       /* a snapshot exists */
    unsigned count;                   /* segments in it */
    unsigned long long adds, subs;    /* the loader's counts when it was taken */
    segment_t segments[MAX_SEGMENTS]; /* sorted by start */
} map MT_COLD;

typedef struct counts {
    unsigned long long adds, subs;
    bool known;
} counts_t;

static void note_counts(const struct dl_phdr_info *info, size_t size, counts_t *c)
{
    /* (The fields after dlpi_phnum came with glibc 2.4 and musl 1.1; the size says.) */
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        c->adds = info->dlpi_adds;
        c->subs = info->dlpi_subs;
        c->known = true;
    }
}

static int add_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
    note_counts(info, size, ctx);
    for (unsigned i = 0; i < info->dlpi_phnum && map.count < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        segment_t s = {start, start + (uintptr_t)ph->p_memsz};
        unsigned j = map.count++; /* insertion sort: a few dozen modules */
        for (; j > 0 && map.segments[j - 1].start > s.start; j--)
            map.segments[j] = map.segments[j - 1];
        map.segments[j] = s;
    }
    return 0;
}

static int first_module_counts(struct dl_phdr_info *info, size_t size, void *ctx)
{
    note_counts(info, size, ctx);
    return 1; /* the counts are the same in every module's entry */
}

static void take_snapshot(void)
{
    counts_t c = {0, 0, false};
    map.count = 0;
    mt_busy++; /* the loader's own allocations, if any, are not the program's */
    dl_iterate_phdr(add_module, &c);
    mt_busy--;
    map.adds = c.adds;
    map.subs = c.subs;
    map.taken = true;
}

/* True when a module was loaded or unloaded since the snapshot (or the loader cannot say:
 * then a look costs only a walk of the list, and a stack with an address outside is rare
 * in code with frame pointers). */
static bool loader_changed(void)
{
    counts_t c = {0, 0, false};
    mt_busy++;
    dl_iterate_phdr(first_module_counts, &c);
    mt_busy--;
    return !c.known || c.adds != map.adds || c.subs != map.subs;
}

/* The segment that holds pc, or NULL. */
static const segment_t *segment_of(uintptr_t pc)
{
    unsigned low = 0, high = map.count; /* the first segment starting after pc: high */
    while (low < high) {
        unsigned mid = (low + high) / 2;
        if (map.segments[mid].start <= pc)
            low = mid + 1;
        else
            high = mid;
    }
    return high > 0 && pc < map.segments[high - 1].end ? &map.segments[high - 1] : NULL;
}

#if defined(__x86_64__)
/* The length of the call through a register or memory (FF /2) that starts at b, or 0. */
static unsigned indirect_call_length(const unsigned char *b)
{
    unsigned modrm = b[1], mod = modrm >> 6, rm = modrm & 7, n = 2;
    if (b[0] != 0xFF || ((modrm >> 3) & 7) != 2)
        return 0;
    if (mod != 3 && rm == 4) { /* a SIB byte; with no base, a 32-bit displacement */
        n++;
        if (mod == 0 && (b[2] & 7) == 5)
            n += 4;
    }
    if (mod == 0 && rm == 5)
        n += 4; /* rip-relative */
    else if (mod == 1)
        n += 1;
    else if (mod == 2)
        n += 4;
    return n;
}

/* True when a call instruction ends at pc (or pc is the sigreturn trampoline: mov $15, %eax
 * or %rax, then syscall), pc's segment starting at least 8 bytes before it. */
static bool call_ends_at(uintptr_t pc)
{
    const unsigned char *b = (const unsigned char *)pc;
    if (b[-5] == 0xE8)
        return true;
    for (unsigned len = 2; len <= 7; len++)
        if (indirect_call_length(b - len) == len)
            return true;
    static const unsigned char sigreturn[] = {0x48, 0xC7, 0xC0, 0x0F, 0x00, 0x00, 0x00, 0x0F, 0x05};
    return memcmp(b, sigreturn, sizeof sigreturn) == 0 ||
           memcmp(b, sigreturn + 1, sizeof sigreturn - 1) == 0;
}
#define CALL_BEFORE 8u
#elif defined(__aarch64__)
static bool call_ends_at(uintptr_t pc)
{
    uint32_t insn, at;
    memcpy(&insn, (const void *)(pc - 4), sizeof insn);
    memcpy(&at, (const void *)pc, sizeof at);
    return (insn & 0xFC000000u) == 0x94000000u || /* BL */
           (insn & 0xFFFFFC1Fu) == 0xD63F0000u || /* BLR */
           (insn & 0xFEFFF800u) == 0xD63F0800u || /* BLRAA, BLRAB... */
           at == 0xD2801168u; /* the sigreturn trampoline: mov x8, #139 (rt_sigreturn) */
}
#define CALL_BEFORE 4u
#else
static bool call_ends_at(uintptr_t pc)
{
    (void)pc;
    return true; /* nothing known of this processor's calls */
}
#define CALL_BEFORE 0u
#endif

/* A return address is just past a call: pc - 1 is the call's last byte, inside its module
 * even when the call is the last instruction of the module's code; and the instruction that
 * ends at pc is a call (where the code before pc in its segment is there to read). */
static bool return_address_in_code(const void *pc)
{
    uintptr_t p = (uintptr_t)pc;
    const segment_t *s = segment_of(p - 1);
    if (s == NULL)
        return false;
    if (p < s->start + CALL_BEFORE || p + 9 > s->end)
        return true; /* too near the segment's edges to read around: the segment says it */
    return call_ends_at(p);
}

unsigned mt_code_prefix(void *const *pcs, unsigned n)
{
    if (MT_UNLIKELY(!map.taken))
        take_snapshot();
    bool looked_again = false;
    for (unsigned i = 0; i < n; i++) {
        if (map.count == 0)
            return n; /* the loader lists nothing: nothing to check against */
        if (return_address_in_code(pcs[i]))
            continue;
        if (looked_again || !loader_changed())
            return i;
        take_snapshot(); /* a module came or went: this address again, against it */
        looked_again = true;
        if (map.count != 0 && !return_address_in_code(pcs[i]))
            return i;
    }
    return n;
}
