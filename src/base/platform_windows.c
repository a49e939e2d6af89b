/* platform_windows.c - the platform on Windows (mingw-w64; the Windows build only): the
 * CRT's allocator underneath ours, the tracker's pages from VirtualAlloc, the program's
 * name and image from its module, and the POSIX names the other sources use (win32/posix.h
 * and the headers beside it) over their Win32 equivalents. With the leak scan's roots
 * (roots_windows.c), the only file that includes <windows.h>.
 *
 * No interposition: the process's malloc stays the CRT's, only code built with the header
 * is tracked (README "Platforms"). The CRT has no aligned allocation that free() takes
 * back, and the tracker frees every block it made with mt_libc_free, so an aligned block
 * carries, in the 16 bytes before it, the CRT block it lives in and a tag made from its
 * own address: mt_libc_free tells the two kinds apart by the tag.
 */
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <malloc.h>
#include <stdarg.h>
#include <string.h>
#include <sys/uio.h>

#include "base/platform.h"
#include "base/program_symbols.h"

/* ---- the raw allocator ---------------------------------------------------------------- */

#define ALIGNED_TAG ((uintptr_t)0x6d74616c69676e21u) /* "mtalign!" */

typedef struct {
    void *raw;     /* what malloc gave */
    uintptr_t tag; /* ALIGNED_TAG ^ the aligned address, while it is live */
} aligned_header_t;

void *mt_libc_aligned(size_t alignment, size_t size)
{
    if (alignment <= MT_MIN_ALIGN)
        return malloc(size);
    if (size > SIZE_MAX - alignment - sizeof(aligned_header_t))
        return NULL;
    unsigned char *raw = malloc(size + alignment + sizeof(aligned_header_t));
    if (raw == NULL)
        return NULL;
    uintptr_t user = ((uintptr_t)raw + sizeof(aligned_header_t) + alignment - 1) & ~(alignment - 1);
    aligned_header_t *h = (aligned_header_t *)user - 1;
    h->raw = raw;
    h->tag = ALIGNED_TAG ^ user;
    return (void *)user;
}

/* The header of an aligned block made above, or NULL for any other block. An aligned
 * block is aligned to 32 at least; the 16 bytes before any other CRT block are the heap's
 * own header, readable, and never hold the tag. */
static aligned_header_t *aligned_header(void *ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    if (p == 0 || (p & (2 * MT_MIN_ALIGN - 1)) != 0)
        return NULL;
    aligned_header_t *h = (aligned_header_t *)p - 1;
    return h->tag == (ALIGNED_TAG ^ p) ? h : NULL;
}

void mt_win_free(void *ptr)
{
    aligned_header_t *h = aligned_header(ptr);
    if (h != NULL) {
        h->tag = 0; /* a second free of it is the CRT's to judge, not ours */
        free(h->raw);
    } else {
        free(ptr);
    }
}

void *mt_win_realloc(void *ptr, size_t size)
{
    aligned_header_t *h = aligned_header(ptr);
    if (h == NULL)
        return realloc(ptr, size);
    /* The tracker grows only blocks it made unaligned; an aligned one moves to a plain
     * block, as realloc() of an aligned block does in C. */
    size_t had = _msize(h->raw) - (size_t)((unsigned char *)ptr - (unsigned char *)h->raw);
    void *moved = malloc(size);
    if (moved != NULL) {
        memcpy(moved, ptr, had < size ? had : size);
        mt_win_free(ptr);
    }
    return moved;
}

size_t mt_libc_usable_size(void *ptr)
{
    if (ptr == NULL)
        return 0;
    aligned_header_t *h = aligned_header(ptr);
    if (h != NULL)
        return _msize(h->raw) - (size_t)((unsigned char *)ptr - (unsigned char *)h->raw);
    return _msize(ptr);
}

/* ---- the tracker's own pages ---------------------------------------------------------- */

void *mt_pages_alloc(size_t size)
{
    return VirtualAlloc(NULL, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void mt_pages_protect_none(void *ptr, size_t size)
{
    DWORD old;
    (void)VirtualProtect(ptr, size, PAGE_NOACCESS, &old);
}

/* VirtualFree releases a whole reservation only, from its start: the tracker frees its
 * mappings whole. */
void mt_pages_free(void *ptr, size_t size)
{
    (void)size;
    if (ptr != NULL)
        (void)VirtualFree(ptr, 0, MEM_RELEASE);
}

/* ---- the crash report (api/crash.c) ----------------------------------------------------- */

static mt_crash_report_fn *crash_report;
static LPTOP_LEVEL_EXCEPTION_FILTER previous_filter;
static void (*previous_abort_handler)(int);

/* The exceptions that end a program, by the names Windows' headers give them. A stack
 * overflow is not among them: the report would need the stack that has run out. */
static const struct {
    DWORD code;
    const char *name;
} fatal_exceptions[] = {
    {EXCEPTION_ACCESS_VIOLATION, "EXCEPTION_ACCESS_VIOLATION"},
    {EXCEPTION_IN_PAGE_ERROR, "EXCEPTION_IN_PAGE_ERROR"},
    {EXCEPTION_ILLEGAL_INSTRUCTION, "EXCEPTION_ILLEGAL_INSTRUCTION"},
    {EXCEPTION_PRIV_INSTRUCTION, "EXCEPTION_PRIV_INSTRUCTION"},
    {EXCEPTION_INT_DIVIDE_BY_ZERO, "EXCEPTION_INT_DIVIDE_BY_ZERO"},
    {EXCEPTION_DATATYPE_MISALIGNMENT, "EXCEPTION_DATATYPE_MISALIGNMENT"},
    {EXCEPTION_ARRAY_BOUNDS_EXCEEDED, "EXCEPTION_ARRAY_BOUNDS_EXCEEDED"},
    {0xC0000374u, "STATUS_HEAP_CORRUPTION"}, /* raised by the system heap's own checks */
};

/* Runs when no handler of the program took the exception (its own __try blocks and
 * vectored handlers come first), on the thread that raised it; then the filter that was
 * there before, or the system's end of the program. */
static LONG WINAPI crash_filter(EXCEPTION_POINTERS *e)
{
    const EXCEPTION_RECORD *r = e->ExceptionRecord;
    for (size_t i = 0; i < sizeof fatal_exceptions / sizeof fatal_exceptions[0]; i++) {
        if (r->ExceptionCode == fatal_exceptions[i].code) {
            bool access = (r->ExceptionCode == EXCEPTION_ACCESS_VIOLATION ||
                           r->ExceptionCode == EXCEPTION_IN_PAGE_ERROR) &&
                          r->NumberParameters >= 2;
            crash_report(fatal_exceptions[i].name, access,
                         access ? (uintptr_t)r->ExceptionInformation[1] : 0);
            break;
        }
    }
    return previous_filter != NULL ? previous_filter(e) : EXCEPTION_CONTINUE_SEARCH;
}

/* abort() raises SIGABRT through the C runtime, then ends the program (status 3). */
static void abort_handler(int sig)
{
    if (!atomic_load(&mt_abort_expected))
        crash_report("SIGABRT", false, 0);
    void (*previous)(int) = previous_abort_handler;
    (void)signal(SIGABRT, previous);
    if (previous != SIG_DFL && previous != SIG_IGN && previous != SIG_ERR && previous != NULL)
        previous(sig);
}

void mt_platform_catch_crashes(mt_crash_report_fn *report)
{
    crash_report = report;
    previous_filter = SetUnhandledExceptionFilter(crash_filter);
    previous_abort_handler = signal(SIGABRT, abort_handler);
}

long mt_win_sysconf(int name)
{
    if (name != _SC_PAGESIZE) {
        errno = EINVAL;
        return -1;
    }
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (long)si.dwPageSize;
}

/* ---- the program ------------------------------------------------------------------------ */

static char program_path[MAX_PATH + 1];
static const char *program_name;

/* The executable's name without its folder and ".exe", as a report names the program on
 * other systems (argv[0] there); "?" if Windows will not say. Never allocates. */
const char *mt_program_name(void)
{
    if (program_name == NULL) {
        DWORD n = GetModuleFileNameA(NULL, program_path, MAX_PATH);
        program_path[n < MAX_PATH ? n : MAX_PATH] = '\0';
        const char *name = program_path;
        for (const char *p = program_path; *p != '\0'; p++)
            if (*p == '\\' || *p == '/' || *p == ':')
                name = p + 1;
        size_t len = strlen(name);
        if (len > 4 && _stricmp(name + len - 4, ".exe") == 0)
            program_path[name + len - 4 - program_path] = '\0';
        program_name = name[0] != '\0' ? name : "?";
    }
    return program_name;
}

ssize_t mt_win_readlink(const char *path, char *buf, size_t size)
{
    if (strcmp(path, "/proc/self/exe") != 0) {
        errno = EINVAL;
        return -1;
    }
    DWORD n = GetModuleFileNameA(NULL, buf, size > MAXDWORD ? MAXDWORD : (DWORD)size);
    if (n == 0) {
        errno = ENOENT;
        return -1;
    }
    return (ssize_t)n;
}

/* The executable's image, from its headers to its last section, as its PE header says. */
extern IMAGE_DOS_HEADER __ImageBase;

bool mt_in_program_image(uintptr_t p)
{
    uintptr_t base = (uintptr_t)&__ImageBase;
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(base + (uintptr_t)__ImageBase.e_lfanew);
    return p >= base && p < base + nt->OptionalHeader.SizeOfImage;
}

/* Unwinds from the entry point's caller, not from here: libmemtrack's own functions have
 * no usable unwind entries (its objects are linked into one with `ld -r`, which leaves
 * their .pdata pointing at the start of its code), the program's have. The entry point
 * keeps a frame pointer (it takes __builtin_frame_address(0)): its caller's return address
 * just above the saved rbp, the caller's stack pointer above that. Every stack pointer the
 * unwind reaches is checked against the thread's stack before a word is read there. */
unsigned mt_platform_capture_stack(void *frame, void *caller, void **out, unsigned max)
{
    const uintptr_t *record = frame;
    ULONG_PTR low = 0, high = 0;
    GetCurrentThreadStackLimits(&low, &high);
    if ((uintptr_t)frame < low || (uintptr_t)frame > high - 16 || (void *)record[1] != caller)
        return 0;
    CONTEXT context;
    RtlCaptureContext(&context);
    context.Rip = (DWORD64)(uintptr_t)caller;
    context.Rsp = (DWORD64)((uintptr_t)frame + 16);
    context.Rbp = (DWORD64)record[0];
    unsigned n = 0;
    while (n < max && context.Rip >= 4096 && context.Rsp >= low && context.Rsp < high) {
        out[n++] = (void *)(uintptr_t)context.Rip;
        DWORD64 image = 0, before = context.Rsp;
        PRUNTIME_FUNCTION entry = RtlLookupFunctionEntry(context.Rip, &image, NULL);
        if (entry == NULL) { /* a leaf function: its return address is on top */
            if (context.Rsp > high - 8)
                break;
            context.Rip = *(const DWORD64 *)(uintptr_t)context.Rsp;
            context.Rsp += 8;
        } else {
            void *handler_data = NULL;
            DWORD64 establisher = 0;
            RtlVirtualUnwind(UNW_FLAG_NHANDLER, image, context.Rip, entry, &context, &handler_data,
                             &establisher, NULL);
        }
        if (context.Rsp <= before)
            break; /* frames only go up the stack */
    }
    return n;
}

/* A static link puts the code of the libraries named after libmemtrack.a (winpthreads,
 * mingw-w64's own) after libmemtrack's in the same section: a thread's start in
 * winpthreads is the system's, as the C library's is elsewhere. */
bool mt_in_code_linked_after(uintptr_t pc)
{
    uintptr_t base = (uintptr_t)&__ImageBase, end = (uintptr_t)&mt_code_end;
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(base + (uintptr_t)__ImageBase.e_lfanew);
    const IMAGE_SECTION_HEADER *section = IMAGE_FIRST_SECTION(nt);
    for (unsigned i = 0; i < nt->FileHeader.NumberOfSections; i++, section++) {
        uintptr_t start = base + section->VirtualAddress;
        if (end >= start && end < start + section->Misc.VirtualSize)
            return pc > end && pc < start + section->Misc.VirtualSize;
    }
    return false;
}

/* ---- the program's functions by name (base/program_symbols.h) -------------------------- *
 *
 * mingw-w64's linker leaves the COFF symbol table in the file (not in the mapped image):
 * it is read once, with its string table, the first time a frame is named (report time),
 * into pages of the tracker's own, and kept. Static functions are there too. */

#define COFF_FUNCTION 0x20 /* IMAGE_SYM_DTYPE_FUNCTION in the type's derived part */

static struct {
    bool tried;
    const unsigned char *symbols; /* count records of IMAGE_SIZEOF_SYMBOL bytes, then strings */
    DWORD count;
    size_t size; /* of all of it */
} coff;

static void coff_load(const IMAGE_NT_HEADERS *nt)
{
    coff.tried = true;
    DWORD at = nt->FileHeader.PointerToSymbolTable, count = nt->FileHeader.NumberOfSymbols;
    wchar_t path[MAX_PATH];
    DWORD n = GetModuleFileNameW(NULL, path, MAX_PATH);
    if (at == 0 || count == 0 || count > (1u << 24) || n == 0 || n >= MAX_PATH)
        return;
    HANDLE f =
        CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                    NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (f == INVALID_HANDLE_VALUE)
        return;
    LARGE_INTEGER size, from;
    from.QuadPart = at;
    size_t want = (size_t)count * IMAGE_SIZEOF_SYMBOL + 4;
    unsigned char *buf = NULL;
    if (GetFileSizeEx(f, &size) && size.QuadPart > at && (uint64_t)(size.QuadPart - at) >= want &&
        (uint64_t)(size.QuadPart - at) < ((uint64_t)1 << 30) &&
        SetFilePointerEx(f, from, NULL, FILE_BEGIN)) {
        size_t total = (size_t)(size.QuadPart - at), got = 0;
        buf = mt_pages_alloc(total);
        while (buf != NULL && got < total) {
            DWORD chunk = 0, ask = total - got > (1u << 20) ? (1u << 20) : (DWORD)(total - got);
            if (!ReadFile(f, buf + got, ask, &chunk, NULL) || chunk == 0)
                break;
            got += chunk;
        }
        if (buf != NULL && got == total) {
            coff.symbols = buf;
            coff.count = count;
            coff.size = total;
        } else if (buf != NULL) {
            mt_pages_free(buf, total);
        }
    }
    CloseHandle(f);
}

const char *mt_program_function(uintptr_t pc, uintptr_t *offset, size_t *size)
{
    static char short_name[IMAGE_SIZEOF_SHORT_NAME + 1];
    uintptr_t base = (uintptr_t)&__ImageBase;
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(base + (uintptr_t)__ImageBase.e_lfanew);
    if (!coff.tried)
        coff_load(nt);
    if (coff.symbols == NULL)
        return NULL;
    const IMAGE_SECTION_HEADER *sections = IMAGE_FIRST_SECTION(nt);
    const unsigned char *strings = coff.symbols + (size_t)coff.count * IMAGE_SIZEOF_SYMBOL;
    size_t strings_size = coff.size - (size_t)coff.count * IMAGE_SIZEOF_SYMBOL;
    const IMAGE_SYMBOL *best = NULL;
    uintptr_t best_start = 0;
    for (DWORD i = 0; i < coff.count; i++) {
        IMAGE_SYMBOL sym;
        memcpy(&sym, coff.symbols + (size_t)i * IMAGE_SIZEOF_SYMBOL, IMAGE_SIZEOF_SYMBOL);
        const IMAGE_SYMBOL *at =
            (const IMAGE_SYMBOL *)(coff.symbols + (size_t)i * IMAGE_SIZEOF_SYMBOL);
        i += sym.NumberOfAuxSymbols;
        if ((sym.Type & 0xf0) != COFF_FUNCTION || sym.SectionNumber <= 0 ||
            sym.SectionNumber > nt->FileHeader.NumberOfSections)
            continue;
        uintptr_t start = base + sections[sym.SectionNumber - 1].VirtualAddress + sym.Value;
        if (start < pc && start >= best_start) { /* pc is a return address: after the call */
            best = at;
            best_start = start;
        }
    }
    if (best == NULL)
        return NULL;
    IMAGE_SYMBOL sym;
    memcpy(&sym, best, IMAGE_SIZEOF_SYMBOL);
    *offset = pc - best_start;
    *size = 0;
    if (sym.N.Name.Short != 0) {
        memcpy(short_name, sym.N.ShortName, IMAGE_SIZEOF_SHORT_NAME);
        short_name[IMAGE_SIZEOF_SHORT_NAME] = '\0';
        return short_name;
    }
    DWORD name = sym.N.Name.Long;
    if (name < 4 || name >= strings_size ||
        memchr(strings + name, '\0', strings_size - name) == NULL)
        return NULL;
    return (const char *)strings + name;
}

/* ---- POSIX names over Win32 (win32/) ---------------------------------------------------- */

int mt_win_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
    (void)sig, (void)sa;
    if (old != NULL)
        memset(old, 0, sizeof *old);
    errno = ENOSYS;
    return -1;
}

int mt_win_sigaltstack(const stack_t *ss, stack_t *old)
{
    (void)ss, (void)old;
    errno = ENOSYS;
    return -1;
}

int mt_win_fcntl(int fd, int cmd, ...)
{
    (void)fd;
    if (cmd == F_SETLK)
        return 0;
    errno = EINVAL;
    return -1;
}

ssize_t process_vm_readv(int pid, const struct iovec *local, unsigned long nlocal,
                         const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
    (void)pid, (void)flags;
    if (nlocal != 1 || nremote != 1 || local->iov_len < remote->iov_len) {
        errno = EINVAL;
        return -1;
    }
    SIZE_T got = 0;
    if (!ReadProcessMemory(GetCurrentProcess(), remote->iov_base, local->iov_base, remote->iov_len,
                           &got)) {
        errno = EFAULT;
        return -1;
    }
    return (ssize_t)got;
}

/* CLOCK_MONOTONIC from the performance counter, CLOCK_REALTIME from the system time. */
int clock_gettime(clockid_t clock, struct timespec *ts)
{
    if (clock == CLOCK_MONOTONIC) {
        LARGE_INTEGER now, hz;
        QueryPerformanceCounter(&now);
        QueryPerformanceFrequency(&hz);
        ts->tv_sec = (time_t)(now.QuadPart / hz.QuadPart);
        ts->tv_nsec = (long)(now.QuadPart % hz.QuadPart * 1000000000 / hz.QuadPart);
        return 0;
    }
    FILETIME ft; /* 100 ns units since 1601 */
    GetSystemTimePreciseAsFileTime(&ft);
    uint64_t t = ((uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime) - 116444736000000000u;
    ts->tv_sec = (time_t)(t / 10000000);
    ts->tv_nsec = (long)(t % 10000000 * 100);
    return 0;
}

int nanosleep(const struct timespec *request, struct timespec *remain)
{
    (void)remain;
    Sleep((DWORD)(request->tv_sec * 1000 + request->tv_nsec / 1000000));
    return 0;
}

int sched_yield(void)
{
    (void)SwitchToThread();
    return 0;
}

int mt_win_rename(const char *from, const char *to)
{
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING))
        return 0;
    errno = EACCES;
    return -1;
}

/* ---- threads (win32/pthread.h) ---------------------------------------------------------- */

int pthread_mutex_init(pthread_mutex_t *m, const void *attr)
{
    (void)attr;
    InitializeSRWLock((PSRWLOCK)&m->srw);
    return 0;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    AcquireSRWLockExclusive((PSRWLOCK)&m->srw);
    return 0;
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
    return TryAcquireSRWLockExclusive((PSRWLOCK)&m->srw) ? 0 : EBUSY;
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
    ReleaseSRWLockExclusive((PSRWLOCK)&m->srw);
    return 0;
}

static BOOL CALLBACK once_call(PINIT_ONCE once, PVOID fn, PVOID *context)
{
    (void)once, (void)context;
    void (*call)(void);
    memcpy(&call, &fn, sizeof call);
    call();
    return TRUE;
}

int pthread_once(pthread_once_t *once, void (*fn)(void))
{
    PVOID arg;
    memcpy(&arg, &fn, sizeof arg);
    return InitOnceExecuteOnce((PINIT_ONCE)&once->init, once_call, arg, NULL) ? 0 : EINVAL;
}

/* A key's destructor becomes the slot's callback, called with the value at thread exit.
 * On x86-64 WINAPI is the one calling convention, so the two types call alike. */
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    PFLS_CALLBACK_FUNCTION callback;
    memcpy(&callback, &destructor, sizeof callback);
    DWORD k = FlsAlloc(destructor != NULL ? callback : NULL);
    if (k == FLS_OUT_OF_INDEXES)
        return EAGAIN;
    *key = k;
    return 0;
}

int pthread_setspecific(pthread_key_t key, const void *value)
{
    return FlsSetValue((DWORD)key, (PVOID)value) ? 0 : EINVAL;
}

void *pthread_getspecific(pthread_key_t key)
{
    return FlsGetValue((DWORD)key);
}

pthread_t pthread_self(void)
{
    return GetCurrentThreadId();
}

int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
    if (thread != GetCurrentThreadId())
        return EINVAL;
    ULONG_PTR low, high;
    GetCurrentThreadStackLimits(&low, &high);
    attr->base = (void *)low;
    attr->size = (size_t)(high - low);
    return 0;
}

int pthread_attr_getstack(const pthread_attr_t *attr, void **base, size_t *size)
{
    *base = attr->base;
    *size = attr->size;
    return 0;
}

#endif /* _WIN32 */
