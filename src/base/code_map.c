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
 * The segments are a sorted snapshot taken from dl_iterate_phdr, searched by bisection.
 * This runs only when a stack is new to the process (records/stack.c's slow path), never
 * for one seen before. A module loaded later (dlopen) is found by comparing the loader's
 * count of loads and unloads when an address is outside the snapshot.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stddef.h>

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

static bool in_code(uintptr_t pc)
{
    unsigned low = 0, high = map.count; /* the first segment starting after pc: high */
    while (low < high) {
        unsigned mid = (low + high) / 2;
        if (map.segments[mid].start <= pc)
            low = mid + 1;
        else
            high = mid;
    }
    return high > 0 && pc < map.segments[high - 1].end;
}

/* A return address is just past a call: pc - 1 is the call's last byte, inside its module
 * even when the call is the last instruction of the module's code. */
static bool return_address_in_code(const void *pc)
{
    return in_code((uintptr_t)pc - 1);
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
