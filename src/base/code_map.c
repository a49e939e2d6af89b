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
 *
 * Each segment also knows whose its module is (the program's, a system library's, the C++
 * runtime's: mt_module_owner), so that a site known by a return address is told to be a
 * system library's once, when it is made (records/site.c), by a search of the same
 * snapshot: blocks made there are counted apart from the program's from their first moment
 * (records/stats.c) and listed apart at the end.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/auxv.h> /* getauxval(AT_BASE): where the loader is */
#endif

#include "base/code_map.h"

#define MAX_SEGMENTS MT_SMALL(512u, 8u)

typedef struct segment {
    uintptr_t start, end; /* [start, end) */
    unsigned char owner;  /* its module's (mt_code_owner_t) */
} segment_t;

static struct {
    bool taken;                       /* a snapshot exists */
    unsigned count;                   /* segments in it */
    unsigned long long adds, subs;    /* the loader's counts when it was taken */
    segment_t segments[MAX_SEGMENTS]; /* sorted by start */
} map MT_COLD;

/* The snapshot is shared by the stacks' walk (under the stacks' lock) and the sites' (under
 * none of theirs): this lock is taken inside the stacks' lock, never around another. */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct counts {
    unsigned long long adds, subs;
    bool known;
    unsigned modules; /* modules seen so far: the first is the program */
} counts_t;

/* Directories the system's own libraries live in. A library the user built and loads
 * from elsewhere is the user's code, and so is the program, wherever it is installed. */
static const char *const system_dirs[] = {"/lib/",       "/lib64/",     "/lib32/",      "/usr/lib/",
                                          "/usr/lib64/", "/usr/lib32/", "/usr/libexec/"};

/* GNU libstdc++ and LLVM libc++ with its ABI library, by file name. Statically linked
 * (-static-libstdc++), the runtime is part of the program and its blocks look like the
 * program's. */
static bool is_cxx_runtime(const char *path)
{
    static const char *const names[] = {"libstdc++.so", "libc++.so", "libc++abi.so"};
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strncmp(base, names[i], strlen(names[i])) == 0)
            return true;
    return false;
}

/* The C library and the loader, by what they are rather than where they were loaded from
 * (a cross tree under qemu-user, a container, a prefix of its own): the module that holds
 * abort() and the one at the loader's base (AT_BASE). Libraries loaded from the C library's
 * own directory are the system's too (libm, libgcc_s beside a cross libc). Found once. */
static struct {
    bool known;
    char libc[256], loader[256]; /* their paths; "" when unknown or too long */
    size_t libc_dir;             /* the length of libc's directory, its '/' included */
} runtime;

static void keep_path(char *to, size_t room, const char *path)
{
    size_t n = path != NULL ? strlen(path) : 0;
    if (n > 0 && n < room)
        memcpy(to, path, n + 1);
}

static void find_runtime(void)
{
    Dl_info info;
    runtime.known = true;
    /* (in a static program abort is the program's own: nothing to note) */
    if (!mt_in_program_image((uintptr_t)&abort) && dladdr((void *)(uintptr_t)&abort, &info) != 0 &&
        info.dli_fname != NULL) {
        keep_path(runtime.libc, sizeof runtime.libc, info.dli_fname);
        const char *slash = strrchr(runtime.libc, '/');
        runtime.libc_dir = slash != NULL ? (size_t)(slash - runtime.libc) + 1 : 0;
    }
#ifdef __linux__
    uintptr_t loader = (uintptr_t)getauxval(AT_BASE);
    if (loader != 0 && dladdr((void *)loader, &info) != 0)
        keep_path(runtime.loader, sizeof runtime.loader, info.dli_fname);
#endif
}

static bool is_c_runtime(const char *path)
{
    if (!runtime.known)
        find_runtime();
    if ((runtime.libc[0] != '\0' && strcmp(path, runtime.libc) == 0) ||
        (runtime.loader[0] != '\0' && strcmp(path, runtime.loader) == 0))
        return true;
    return runtime.libc_dir > 1 && strncmp(path, runtime.libc, runtime.libc_dir) == 0 &&
           strchr(path + runtime.libc_dir, '/') == NULL;
}

mt_code_owner_t mt_module_owner(const char *path, bool is_program, bool is_self)
{
    if (is_program)
        return MT_CODE_PROGRAM; /* the program, libmemtrack.a linked into it included */
    if (is_self || path == NULL || path[0] == '\0')
        return MT_CODE_SYSTEM; /* libmemtrack itself; a module without a name is not the user's */
    if (is_cxx_runtime(path))
        return MT_CODE_CXX_RUNTIME;
    if (is_c_runtime(path))
        return MT_CODE_SYSTEM;
    if (strstr(path, "ld-linux") != NULL || strstr(path, "vdso") != NULL)
        return MT_CODE_SYSTEM;
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        if (strncmp(path, system_dirs[i], strlen(system_dirs[i])) == 0)
            return MT_CODE_SYSTEM;
    return MT_CODE_PROGRAM;
}

static void note_counts(const struct dl_phdr_info *info, size_t size, counts_t *c)
{
    /* (The fields after dlpi_phnum came with glibc 2.4 and musl 1.1; the size says.) */
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        c->adds = info->dlpi_adds;
        c->subs = info->dlpi_subs;
        c->known = true;
    }
}

/* True when one of the module's executable segments holds libmemtrack's own code. */
static bool module_is_self(const struct dl_phdr_info *info)
{
    uintptr_t self = (uintptr_t)&mt_code_owner;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self >= start &&
            self - start < (uintptr_t)ph->p_memsz)
            return true;
    }
    return false;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
    counts_t *c = ctx;
    note_counts(info, size, c);
    bool is_program = c->modules++ == 0; /* the loader lists the program first */
    mt_code_owner_t owner =
        mt_module_owner(info->dlpi_name, is_program, !is_program && module_is_self(info));
    for (unsigned i = 0; i < info->dlpi_phnum && map.count < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        segment_t s = {start, start + (uintptr_t)ph->p_memsz, (unsigned char)owner};
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
    counts_t c = {0, 0, false, 0};
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
    counts_t c = {0, 0, false, 0};
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

static unsigned code_prefix_locked(void *const *pcs, unsigned n)
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

unsigned mt_code_prefix(void *const *pcs, unsigned n)
{
    mt_busy++; /* a signal handler's allocation meanwhile goes untracked, past this lock */
    pthread_mutex_lock(&map_lock);
    unsigned found = code_prefix_locked(pcs, n);
    pthread_mutex_unlock(&map_lock);
    mt_busy--;
    return found;
}

/* Where the loader knows no module (a static link), or none holds pc (code it did not
 * load): the program's image is the program's, less the code linked after libmemtrack's
 * (the C library's, in a static link). */
static mt_code_owner_t owner_by_image(uintptr_t pc)
{
    return !mt_in_program_image(pc) || mt_in_code_linked_after(pc) ? MT_CODE_SYSTEM
                                                                   : MT_CODE_PROGRAM;
}

mt_code_owner_t mt_code_owner(const void *pc)
{
    uintptr_t at = (uintptr_t)pc - 1; /* the call's last byte: see return_address_in_code */
    if (pc == NULL)
        return MT_CODE_PROGRAM;
    if (mt_in_code_linked_after(at))
        return MT_CODE_SYSTEM;
    mt_busy++;
    pthread_mutex_lock(&map_lock);
    if (MT_UNLIKELY(!map.taken))
        take_snapshot();
    const segment_t *s = segment_of(at);
    if (s == NULL && map.count != 0 && loader_changed()) {
        take_snapshot(); /* a module came or went: pc again, against it */
        s = segment_of(at);
    }
    mt_code_owner_t owner = s != NULL ? (mt_code_owner_t)s->owner : owner_by_image((uintptr_t)pc);
    pthread_mutex_unlock(&map_lock);
    mt_busy--;
    return owner;
}

void mt_code_map_lock(void)
{
    pthread_mutex_lock(&map_lock);
}

void mt_code_map_unlock(void)
{
    pthread_mutex_unlock(&map_lock);
}
