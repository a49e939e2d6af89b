/* roots_linux.c - the roots of the leak scan on Linux (base/roots.h says which).
 *
 * Nothing here stops another thread. A thread blocked in a system call (most threads still
 * running at exit: waiting on a lock, a condition, a read) has its stack pointer and the
 * system call's arguments in /proc/self/task/TID/syscall: its stack is read from there up.
 * A thread running in user code says only "running": its whole stack is read, found by the
 * word of it its first call into the tracker noted (mt_roots_thread_seen). Signals would
 * stop threads for a more exact reading, but they interrupt a thread's system calls
 * (EINTR), which the program being debugged must never see.
 *
 * Files are read with open and read, no stdio; the lists live in pages of their own.
 */
#if !defined(_WIN32) && !defined(MT_BARE_METAL)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__GLIBC__) && defined(__has_include)
#if __has_include(<unwind.h>)
#include <unwind.h> /* the types only: libgcc_s is opened when a scan needs it */
#define HAVE_UNWINDER 1
#endif
#endif

#include "base/buf.h"
#include "base/lock.h"
#include "base/roots.h"

/* The words below a stack pointer that a leaf function may still use (x86-64's red zone;
 * taken everywhere, to be safe). */
#define RED_ZONE 128u

static pid_t thread_id(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* ---- the memory map (/proc/self/maps) ------------------------------------------------- */

typedef struct mapping {
    uintptr_t start, end;
    bool readable;
} mapping_t;

typedef struct map {
    mapping_t *list; /* in address order, as the kernel lists them */
    size_t n, cap;
} map_t;

static uintptr_t parse_hex(const char **s, const char *end)
{
    uintptr_t v = 0;
    for (; *s < end; (*s)++) {
        char c = **s;
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d == 16)
            break;
        v = v << 4 | d;
    }
    return v;
}

/* "start-end perms ...": one line of the map. */
static bool map_line(map_t *m, const char *s, const char *end)
{
    uintptr_t start = parse_hex(&s, end);
    if (s == end || *s != '-')
        return true;
    s++;
    uintptr_t stop = parse_hex(&s, end);
    if (s + 2 > end || *s != ' ')
        return true;
    if (m->n == m->cap) {
        size_t more = m->cap != 0 ? m->cap * 2 : 512;
        mapping_t *fresh = mt_pages_alloc(more * sizeof *fresh);
        if (fresh == NULL)
            return false;
        if (m->list != NULL) {
            memcpy(fresh, m->list, m->n * sizeof *fresh);
            mt_pages_free(m->list, m->cap * sizeof *fresh);
        }
        m->list = fresh;
        m->cap = more;
    }
    m->list[m->n++] = (mapping_t){start, stop, s[1] == 'r'};
    return true;
}

static bool map_read(map_t *m, char *buf, size_t size)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t have = 0;
    bool ok = true;
    for (;;) {
        ssize_t got = read(fd, buf + have, size - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        have += (size_t)got;
        char *line = buf, *nl;
        while ((nl = memchr(line, '\n', (size_t)(buf + have - line))) != NULL) {
            ok = ok && map_line(m, line, nl);
            line = nl + 1;
        }
        have = (size_t)(buf + have - line); /* a line cut by the buffer's end: kept */
        memmove(buf, line, have);
        if (have == size)
            have = 0; /* a line longer than the buffer (a path): not one we need */
    }
    close(fd);
    return ok && m->n != 0;
}

static const mapping_t *map_find(const map_t *m, uintptr_t addr)
{
    size_t low = 0, high = m->n;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (m->list[mid].start <= addr)
            low = mid + 1;
        else
            high = mid;
    }
    return high > 0 && addr < m->list[high - 1].end ? &m->list[high - 1] : NULL;
}

static void map_free(map_t *m)
{
    if (m->list != NULL)
        mt_pages_free(m->list, m->cap * sizeof *m->list);
}

/* ---- threads seen by the tracker ------------------------------------------------------- */

typedef struct thread_note {
    pid_t tid; /* 0: a free entry */
    unsigned number;
    uintptr_t sp; /* a word of its stack, from its first call */
    mt_span_t own[2];
    size_t nown;
} thread_note_t;

static struct {
    mt_lock_t lock;
    pid_t pid; /* the process the notes are of (a forked child starts afresh) */
    thread_note_t *notes;
    size_t n, cap;
} seen = {.lock = MT_LOCK_INIT};

/* Drops the notes of threads that are gone (a full list, before it grows). */
static void forget_gone_locked(void)
{
    int saved = errno;
    size_t kept = 0;
    for (size_t i = 0; i < seen.n; i++) {
        thread_note_t *t = &seen.notes[i];
        if (t->tid != 0 && syscall(SYS_tgkill, seen.pid, t->tid, 0) == 0)
            seen.notes[kept++] = *t;
    }
    seen.n = kept;
    errno = saved;
}

void mt_roots_thread_seen(unsigned number)
{
    char here;
    thread_note_t note = {thread_id(), number, (uintptr_t)&here, {{0, 0}, {0, 0}}, 0};
    note.nown = mt_own_thread_spans(note.own);
    pid_t pid = getpid();
    mt_lock(&seen.lock);
    if (seen.pid != pid) { /* the parent's threads are not this process's */
        seen.pid = pid;
        seen.n = 0;
    }
    for (size_t i = 0; i < seen.n; i++)
        if (seen.notes[i].tid == note.tid) { /* a number the kernel gave again */
            seen.notes[i] = note;
            mt_unlock(&seen.lock);
            return;
        }
    if (seen.n == seen.cap)
        forget_gone_locked();
    if (seen.n == seen.cap) {
        size_t more = seen.cap != 0 ? seen.cap * 2 : 64;
        thread_note_t *fresh = mt_pages_alloc(more * sizeof *fresh);
        if (fresh != NULL) {
            if (seen.notes != NULL) {
                memcpy(fresh, seen.notes, seen.n * sizeof *fresh);
                mt_pages_free(seen.notes, seen.cap * sizeof *fresh);
            }
            seen.notes = fresh;
            seen.cap = more;
        }
    }
    if (seen.n < seen.cap)
        seen.notes[seen.n++] = note;
    mt_unlock(&seen.lock);
}

void mt_roots_lock_all(void)
{
    mt_lock(&seen.lock);
}

void mt_roots_unlock_all(void)
{
    mt_unlock(&seen.lock);
}

static bool note_of_locked(pid_t tid, thread_note_t *out)
{
    if (seen.pid != getpid())
        return false;
    for (size_t i = 0; i < seen.n; i++)
        if (seen.notes[i].tid == tid) {
            *out = seen.notes[i];
            return true;
        }
    return false;
}

/* ---- modules' data and this thread's thread-local storage ------------------------------- */

typedef struct collect {
    mt_roots_t *roots;
    const mt_span_t *own;
    size_t nown;
    const mt_span_t *own_thread;
    size_t nown_thread;
    unsigned thread;
    bool ok;
} collect_t;

static int add_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
    collect_t *c = ctx;
    uintptr_t relro_start = 0, relro_end = 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) { /* read-only once relocated: never a block's address */
            relro_start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
            relro_end = relro_start + (uintptr_t)ph->p_memsz;
        }
    }
    /* (dlpi_tls_data came with glibc 2.12 and musl 1.1: the size says.) */
    void *tls = size >= offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof info->dlpi_tls_data
                    ? info->dlpi_tls_data
                    : NULL;
    for (unsigned i = 0; i < info->dlpi_phnum && c->ok; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        uintptr_t end = start + (uintptr_t)ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            mt_span_t holes[MT_OWN_SPANS_MAX + 1];
            size_t n = 0;
            for (; n < c->nown; n++)
                holes[n] = c->own[n];
            if (relro_end > relro_start)
                holes[n++] = (mt_span_t){relro_start, relro_end};
            c->ok = mt_roots_add(c->roots, start, end, MT_ROOT_DATA, 0, holes, n);
        } else if (ph->p_type == PT_TLS && tls != NULL) {
            uintptr_t at = (uintptr_t)tls;
            c->ok = mt_roots_add(c->roots, at, at + (uintptr_t)ph->p_memsz, MT_ROOT_TLS, c->thread,
                                 c->own_thread, c->nown_thread);
        }
    }
    return c->ok ? 0 : 1;
}

/* ---- other threads ------------------------------------------------------------------- */

/* Reads a small file whole into buf (NUL-terminated); its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got;
    do
        got = read(fd, buf, size - 1);
    while (got < 0 && errno == EINTR);
    close(fd);
    if (got >= 0)
        buf[got] = '\0';
    return got;
}

/* /proc/self/task/TID/syscall: "NR a1 a2 a3 a4 a5 a6 SP PC" in a system call, "-1 SP PC"
 * blocked outside one, "running" otherwise. Returns the stack pointer (0: not known) and
 * the arguments in args. */
static uintptr_t blocked_at(pid_t tid, uintptr_t args[6], size_t *nargs)
{
    char path[64], text[256];
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_str(&b, "/proc/self/task/");
    mt_buf_u64(&b, (uint64_t)tid);
    mt_buf_str(&b, "/syscall");
    if (b.len >= sizeof path)
        return 0;
    memcpy(path, b.data, b.len);
    path[b.len] = '\0';
    *nargs = 0;
    ssize_t n = read_small(path, text, sizeof text);
    if (n <= 0 || text[0] == 'r')
        return 0;
    uintptr_t words[9];
    size_t count = 0;
    const char *s = text, *end = text + n;
    while (s < end && count < 9) {
        while (s < end && (*s == ' ' || *s == '\n'))
            s++;
        if (s + 2 <= end && s[0] == '0' && s[1] == 'x') {
            s += 2;
            words[count++] = parse_hex(&s, end);
        } else { /* the number of the call, in decimal, or -1: not kept */
            while (s < end && *s != ' ' && *s != '\n')
                s++;
        }
    }
    if (count == 8) { /* six arguments, then SP and PC */
        for (size_t i = 0; i < 6; i++)
            args[i] = words[i];
        *nargs = 6;
        return words[6];
    }
    return count == 2 ? words[0] : 0;
}

/* Adds another live thread's stack (and its system call's arguments). */
static bool add_thread(collect_t *c, const map_t *m, pid_t tid)
{
    uintptr_t args[6];
    size_t nargs = 0;
    uintptr_t sp = blocked_at(tid, args, &nargs);
    thread_note_t note;
    mt_lock(&seen.lock);
    bool known = note_of_locked(tid, &note);
    mt_unlock(&seen.lock);
    unsigned number = known ? note.number : 0;
    const mapping_t *stack = sp != 0 ? map_find(m, sp) : NULL;
    bool whole = stack == NULL || !stack->readable;
    if (whole) /* running (or a stack pointer outside every mapping): its whole stack */
        stack = known ? map_find(m, note.sp) : NULL;
    /* A thread the tracker never saw and whose stack pointer says nothing (running, or not
     * the program's: an emulator's own threads) is left out; one it saw is counted. */
    if (stack == NULL || !stack->readable) {
        c->roots->threads_unread += known;
        return true;
    }
    uintptr_t from = whole ? stack->start : sp - RED_ZONE;
    if (from < stack->start)
        from = stack->start;
    size_t first = c->roots->n;
    if (!mt_roots_add(c->roots, from, stack->end, MT_ROOT_STACK, number, known ? note.own : NULL,
                      known ? note.nown : 0))
        return false;
    for (size_t i = first; i < c->roots->n; i++)
        c->roots->list[i].whole = whole;
    return nargs == 0 || mt_roots_add_values(c->roots, args, nargs, number);
}

static bool add_other_threads(collect_t *c, const map_t *m, pid_t self, char *buf, size_t size)
{
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return true; /* no /proc: this thread's roots only */
    bool ok = true;
    for (;;) {
        long got = syscall(SYS_getdents64, fd, buf, size);
        if (got <= 0)
            break;
        for (long at = 0; at < got && ok;) {
            /* struct linux_dirent64: inode (8), offset (8), length (2), type (1), name */
            unsigned short len;
            memcpy(&len, buf + at + 16, sizeof len);
            const char *name = buf + at + 19;
            at += len;
            if (name[0] < '0' || name[0] > '9')
                continue;
            pid_t tid = 0;
            for (const char *d = name; *d >= '0' && *d <= '9'; d++)
                tid = tid * 10 + (*d - '0');
            if (tid != self)
                ok = add_thread(c, m, tid);
        }
    }
    close(fd);
    return ok;
}

/* ---- this thread's frames ---------------------------------------------------------------- */

#ifdef HAVE_UNWINDER
/* The DWARF unwinder (libgcc_s, as glibc's backtrace() uses it) knows each frame's canonical
 * address, through code without frame pointers too: the C library's exit() between main
 * and the exit report, say. Opened only by a scan; not found, the frame records are walked
 * instead (roots.c). */
/* The registers a function must keep for its caller, by their DWARF numbers: what the
 * program had in them when it called the tracker's entry point. */
#if defined(__x86_64__)
static const int kept_registers[] = {3, 6, 12, 13, 14, 15}; /* rbx rbp r12-r15 */
#elif defined(__i386__)
static const int kept_registers[] = {3, 5, 6, 7}; /* ebx ebp esi edi */
#elif defined(__aarch64__)
static const int kept_registers[] = {19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}; /* x19-x29 */
#elif defined(__s390x__)
static const int kept_registers[] = {6, 7, 8, 9, 10, 11, 12, 13}; /* r6-r13 */
#else
static const int kept_registers[] = {-1};
#endif
#define KEPT_REGISTERS (sizeof kept_registers / sizeof kept_registers[0])

static struct {
    pthread_once_t once;
    _Unwind_Reason_Code (*backtrace)(_Unwind_Trace_Fn, void *);
    _Unwind_Ptr (*get_ip)(struct _Unwind_Context *);
    _Unwind_Word (*get_cfa)(struct _Unwind_Context *);
    _Unwind_Word (*get_gr)(struct _Unwind_Context *, int);
} unwinder = {.once = PTHREAD_ONCE_INIT};

static void open_unwinder(void)
{
    void *lib = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return;
    *(void **)&unwinder.get_ip = dlsym(lib, "_Unwind_GetIP");
    *(void **)&unwinder.get_cfa = dlsym(lib, "_Unwind_GetCFA");
    *(void **)&unwinder.get_gr = dlsym(lib, "_Unwind_GetGR");
    if (unwinder.get_ip != NULL && unwinder.get_cfa != NULL && unwinder.get_gr != NULL &&
        kept_registers[0] >= 0)
        *(void **)&unwinder.backtrace = dlsym(lib, "_Unwind_Backtrace");
}

typedef struct unwinding {
    mt_roots_t *r;
    uintptr_t from, end, last_sp;
    bool entry_seen;                /* the entry point's own frame went by */
    uintptr_t kept[KEPT_REGISTERS]; /* the program's registers at its call of the entry point */
    size_t nkept;
} unwinding_t;

/* The unwinder calls this for each frame, innermost first, with its instruction pointer (a
 * return address, but for the innermost) and the canonical frame address of the frame it
 * returns from: this frame's stack pointer. A frame's words lie from there up to the next
 * frame's. The tracker's frames are below `from`; the entry point's own (its saved
 * registers, a slot of padding that may hold anything of a call that returned) is left
 * out: its caller's registers are taken from the unwinder instead, as values. */
static _Unwind_Reason_Code unwind_step(struct _Unwind_Context *ctx, void *arg)
{
    unwinding_t *u = arg;
    mt_roots_t *r = u->r;
    uintptr_t sp = (uintptr_t)unwinder.get_cfa(ctx);
    uintptr_t ip = (uintptr_t)unwinder.get_ip(ctx);
    if (sp < u->last_sp || sp > u->end || r->nframes == MT_ROOT_FRAMES_MAX || ip == 0)
        return _URC_END_OF_STACK;
    u->last_sp = sp;
    if (sp < u->from)
        return _URC_NO_REASON; /* the tracker's own frames */
    if (!u->entry_seen) {
        u->entry_seen = true;
        return _URC_NO_REASON;
    }
    if (u->nkept == 0)
        for (size_t k = 0; k < KEPT_REGISTERS; k++)
            u->kept[u->nkept++] = (uintptr_t)unwinder.get_gr(ctx, kept_registers[k]);
    if (r->nframes != 0)
        r->frames[r->nframes - 1].end = sp;
    r->frames[r->nframes++] = (mt_stack_frame_t){sp, u->end, (void *)ip};
    return _URC_NO_REASON;
}

/* This thread's frames from the entry point's caller up, and that caller's registers. */
static bool unwind_frames(mt_roots_t *r, uintptr_t stack_from, uintptr_t stack_end, unsigned thread)
{
    pthread_once(&unwinder.once, open_unwinder);
    if (unwinder.backtrace == NULL)
        return false;
    unwinding_t u = {r, stack_from, stack_end, 0, false, {0}, 0};
    r->nframes = 0;
    unwinder.backtrace(unwind_step, &u);
    if (r->nframes == 0 || u.nkept == 0) {
        r->nframes = 0;
        return false;
    }
    return mt_roots_add_values(r, u.kept, u.nkept, thread);
}
#endif

/* ---- all of them -------------------------------------------------------------------------- */

#define READ_BUFFER (64u * 1024u)

/* True for code of the C library or the loader: a dynamic one by its file name, a static
 * one as what the linker placed after libmemtrack's code (base/code_end.c). */
static bool c_runtime_code(void *pc)
{
    static const char *const names[] = {"libc.so", "libc-",   "libc.musl", "ld-linux",
                                        "ld-musl", "ld64.so", "ld.so"};
    Dl_info info;
    if (mt_in_code_linked_after((uintptr_t)pc))
        return true;
    if (dladdr(pc, &info) == 0 || info.dli_fname == NULL)
        return false;
    const char *slash = strrchr(info.dli_fname, '/');
    const char *base = slash != NULL ? slash + 1 : info.dli_fname;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strncmp(base, names[i], strlen(names[i])) == 0)
            return true;
    return false;
}

/* The calling thread's stack: less the C library's frames when they are known. */
static bool add_own_stack(collect_t *c, uintptr_t from, uintptr_t end, void *frame, bool at_exit)
{
    mt_roots_t *r = c->roots;
#ifdef HAVE_UNWINDER
    mt_busy++; /* its first call loads libgcc_s, which allocates */
    bool unwound = unwind_frames(r, from, end, c->thread);
    mt_busy--;
    if (!unwound)
#endif
        mt_roots_walk_frames(r, frame, from, end); /* the entry point's frame included */
    if (r->nframes == 0)
        return at_exit ||
               mt_roots_add(r, from, end, MT_ROOT_STACK, c->thread, c->own_thread, c->nown_thread);
    /* A frame of the C library's is skipped, and with the last one a walk told, all the
     * rest above it: at exit, called from the C library's exit(), the program's frames are
     * found only with the unwinder (and what main's frame held is dead once it returned). */
    for (size_t f = 0; f < r->nframes; f++) {
        const mt_stack_frame_t *fr = &r->frames[f];
        if (!c_runtime_code(fr->pc) && !mt_roots_add(r, fr->start, fr->end, MT_ROOT_STACK,
                                                     c->thread, c->own_thread, c->nown_thread))
            return false;
    }
    return true;
}

bool mt_roots_collect(mt_roots_t *r, uintptr_t stack_from, void *frame, bool at_exit)
{
    memset(r, 0, sizeof *r);
    int saved = errno;
    char *buf = mt_pages_alloc(READ_BUFFER);
    map_t m = {NULL, 0, 0};
    if (buf == NULL || !map_read(&m, buf, READ_BUFFER)) {
        if (buf != NULL)
            mt_pages_free(buf, READ_BUFFER);
        map_free(&m);
        errno = saved;
        return false;
    }
    mt_span_t own[MT_OWN_SPANS_MAX], own_thread[MT_OWN_SPANS_MAX];
    collect_t c = {
        r,           own, mt_own_data_spans(own), own_thread, mt_own_thread_spans(own_thread),
        mt_thread(), true};
    mt_busy++; /* the loader's own allocations, if any, are not the program's */
    dl_iterate_phdr(add_module, &c);
    mt_busy--;

    /* This thread's stack, from the entry point's frame up; its registers are there. */
    const mapping_t *stack = map_find(&m, stack_from);
    if (c.ok && stack != NULL)
        c.ok = add_own_stack(&c, stack_from, stack->end, frame, at_exit);
    if (c.ok)
        c.ok = add_other_threads(&c, &m, thread_id(), buf, READ_BUFFER);
    if (c.ok)
        c.ok = mt_roots_add_mapped(r);
    map_free(&m);
    mt_pages_free(buf, READ_BUFFER);
    if (!c.ok)
        mt_roots_free(r);
    errno = saved;
    return c.ok;
}

bool mt_memory_may_read(uintptr_t addr, size_t n)
{
    (void)addr;
    (void)n;
    return true; /* process_vm_readv refuses what cannot be read, device memory included */
}

#endif /* !_WIN32 && !MT_BARE_METAL */
