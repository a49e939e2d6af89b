/* roots_windows.c - the roots of the leak scan on Windows (base/roots.h says which): the
 * writable sections of every module (their PE headers), the calling thread's stack by the
 * frames Windows' own unwinder tells (every x64 function has unwind data), less the C
 * runtime's and the system's (at exit those of exit(), whose words are main's, dead, and
 * the handlers' runner below it), and
 * the registers the program had when it called the tracker (saved in the entry point's
 * frame, which is read with its caller's); and each other thread's
 * context: it is suspended for as long as its registers are read, then its stack is read
 * from its stack pointer up to the base its thread block gives.
 *
 * Thread-local variables are not read: mingw keeps them in the C runtime's heap (emutls),
 * which the tracker cannot walk. The only other file besides platform_windows.c that
 * includes <windows.h>.
 */
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <string.h>
#include <tlhelp32.h>

#include "base/roots.h"

/* ---- the modules' data ---------------------------------------------------------------- */

static bool add_module_data(mt_roots_t *r, const unsigned char *base, const mt_span_t *own,
                            size_t nown)
{
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    if (dos->e_magic != IMAGE_DOS_SIGNATURE)
        return true;
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(base + dos->e_lfanew);
    if (nt->Signature != IMAGE_NT_SIGNATURE)
        return true;
    const IMAGE_SECTION_HEADER *sec = IMAGE_FIRST_SECTION(nt);
    for (unsigned i = 0; i < nt->FileHeader.NumberOfSections; i++, sec++) {
        if (!(sec->Characteristics & IMAGE_SCN_MEM_WRITE) ||
            (sec->Characteristics & IMAGE_SCN_MEM_EXECUTE))
            continue;
        uintptr_t start = (uintptr_t)base + sec->VirtualAddress;
        if (!mt_roots_add(r, start, start + sec->Misc.VirtualSize, MT_ROOT_DATA, 0, own, nown))
            return false;
    }
    return true;
}

static bool add_modules(mt_roots_t *r)
{
    mt_span_t own[MT_OWN_SPANS_MAX];
    size_t nown = mt_own_data_spans(own);
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPMODULE, GetCurrentProcessId());
    if (snap == INVALID_HANDLE_VALUE)
        return add_module_data(r, (const unsigned char *)GetModuleHandleA(NULL), own, nown);
    MODULEENTRY32 m = {.dwSize = sizeof m};
    bool ok = true;
    for (BOOL more = Module32First(snap, &m); more && ok; more = Module32Next(snap, &m))
        ok = add_module_data(r, m.modBaseAddr, own, nown);
    CloseHandle(snap);
    return ok;
}

/* ---- this thread's frames ------------------------------------------------------------- */

/* Code of the C runtime or the system (exit() and its callers): by the module's name. */
static bool c_runtime_code(void *pc)
{
    static const char *const names[] = {"msvcrt", "ucrtbase", "ntdll", "kernel32", "kernelbase"};
    HMODULE mod;
    char path[MAX_PATH];
    if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCSTR)pc, &mod) ||
        mod == GetModuleHandleA(NULL) || GetModuleFileNameA(mod, path, sizeof path) == 0)
        return false;
    const char *base = path;
    for (const char *p = path; *p != '\0'; p++)
        if (*p == '\\' || *p == '/')
            base = p + 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (_strnicmp(base, names[i], strlen(names[i])) == 0)
            return true;
    return false;
}

#ifdef _M_X64
/* Walks this thread's frames from the entry point's caller up, with Windows' unwinder
 * (every x64 function has unwind data: the program's, the C runtime's). The tracker's own
 * unwind data cannot serve (the static library is one object made by `ld -r`, which leaves
 * its .pdata wrong), so the walk starts from the entry point's frame record: the caller's
 * frame pointer and return address, its stack pointer just above. The entry point's frame,
 * with the registers it saved, goes with its caller's. */
static bool unwind_frames(mt_roots_t *r, uintptr_t stack_from, uintptr_t stack_end, void *frame)
{
    uintptr_t fp = (uintptr_t)frame;
    if (fp < stack_from || fp % 8 != 0 || fp + 16 > stack_end)
        return false;
    CONTEXT ctx;
    RtlCaptureContext(&ctx);
    ctx.Rbp = ((const DWORD64 *)fp)[0];
    ctx.Rip = ((const DWORD64 *)fp)[1];
    ctx.Rsp = fp + 16;
    r->nframes = 0;
    uintptr_t start = stack_from;
    while (ctx.Rip != 0 && r->nframes < MT_ROOT_FRAMES_MAX) {
        void *pc = (void *)(uintptr_t)ctx.Rip;
        DWORD64 image;
        PRUNTIME_FUNCTION fn = RtlLookupFunctionEntry(ctx.Rip, &image, NULL);
        if (fn != NULL) {
            PVOID handler;
            DWORD64 established;
            RtlVirtualUnwind(UNW_FLAG_NHANDLER, image, ctx.Rip, fn, &ctx, &handler, &established,
                             NULL);
        } else if (ctx.Rsp + 8 <= stack_end) { /* a leaf: the return address is at the top */
            ctx.Rip = *(const DWORD64 *)(uintptr_t)ctx.Rsp;
            ctx.Rsp += 8;
        } else {
            ctx.Rip = 0;
        }
        /* Its words run up to the stack pointer its caller had at the call. */
        uintptr_t end = (uintptr_t)ctx.Rsp;
        bool last = ctx.Rip == 0 || end <= start || end > stack_end;
        r->frames[r->nframes++] = (mt_stack_frame_t){start, last ? stack_end : end, pc};
        if (last)
            break;
        start = end;
    }
    return r->nframes != 0;
}
#endif

static bool add_own_stack(mt_roots_t *r, uintptr_t from, void *frame, bool at_exit)
{
    ULONG_PTR low, high;
    GetCurrentThreadStackLimits(&low, &high);
    uintptr_t end = (uintptr_t)high;
    if (from < (uintptr_t)low || from >= end)
        return true;
    unsigned thread = mt_thread();
    bool unwound = false;
#ifdef _M_X64
    unwound = unwind_frames(r, from, end, frame);
#endif
    if (!unwound)
        mt_roots_walk_frames(r, frame, from, end); /* (x86: frame records) */
    if (r->nframes == 0)
        return at_exit || mt_roots_add(r, from, end, MT_ROOT_STACK, thread, NULL, 0);
    /* At exit the frames below the C runtime's exit() are the destructors' dispatch
     * (mingw's __do_global_dtors is in the program's file) and the tracker's own: their
     * slots hold what main's callees left there, dead pointers, which read as the
     * program's would keep its leaks reachable. The program's live frames are above. */
    bool dispatch = at_exit;
    for (size_t f = 0; f < r->nframes; f++) {
        const mt_stack_frame_t *fr = &r->frames[f];
        bool runtime = c_runtime_code(fr->pc);
        dispatch = dispatch && !runtime;
        if (!runtime && !dispatch &&
            !mt_roots_add(r, fr->start, fr->end, MT_ROOT_STACK, thread, NULL, 0))
            return false;
    }
    return true;
}

/* ---- the other threads ------------------------------------------------------------------ */

typedef LONG(NTAPI *query_thread_fn)(HANDLE, int, PVOID, ULONG, PULONG);

typedef struct thread_basics { /* THREAD_BASIC_INFORMATION, class 0 */
    LONG exit_status;
    PVOID teb;
    HANDLE process, thread;
    ULONG_PTR affinity;
    LONG priority, base_priority;
} thread_basics_t;

/* Where a thread's stack ends (its base, the highest address), from its thread block. */
static uintptr_t stack_base(HANDLE thread, query_thread_fn query)
{
    thread_basics_t tb;
    NT_TIB tib;
    SIZE_T got = 0;
    if (query == NULL || query(thread, 0, &tb, sizeof tb, NULL) != 0 || tb.teb == NULL ||
        !ReadProcessMemory(GetCurrentProcess(), tb.teb, &tib, sizeof tib, &got) ||
        got != sizeof tib)
        return 0;
    return (uintptr_t)tib.StackBase;
}

static bool add_thread(mt_roots_t *r, DWORD id, query_thread_fn query)
{
    HANDLE t = OpenThread(THREAD_GET_CONTEXT | THREAD_SUSPEND_RESUME | THREAD_QUERY_INFORMATION,
                          FALSE, id);
    if (t == NULL) {
        r->threads_unread++;
        return true;
    }
    CONTEXT ctx = {.ContextFlags = CONTEXT_CONTROL | CONTEXT_INTEGER};
    bool read = SuspendThread(t) != (DWORD)-1;
    read = read && GetThreadContext(t, &ctx);
    if (read)
        ResumeThread(t);
    uintptr_t base = read ? stack_base(t, query) : 0;
    CloseHandle(t);
#ifdef _M_X64
    uintptr_t sp = (uintptr_t)ctx.Rsp;
    uintptr_t regs[] = {ctx.Rax, ctx.Rbx, ctx.Rcx, ctx.Rdx, ctx.Rsi, ctx.Rdi, ctx.Rbp, ctx.R8,
                        ctx.R9,  ctx.R10, ctx.R11, ctx.R12, ctx.R13, ctx.R14, ctx.R15};
#else
    uintptr_t sp = (uintptr_t)ctx.Esp;
    uintptr_t regs[] = {ctx.Eax, ctx.Ebx, ctx.Ecx, ctx.Edx, ctx.Esi, ctx.Edi, ctx.Ebp};
#endif
    if (!read || base == 0 || sp >= base) {
        r->threads_unread++;
        return true;
    }
    return mt_roots_add(r, sp > 128 ? sp - 128 : sp, base, MT_ROOT_STACK, 0, NULL, 0) &&
           mt_roots_add_values(r, regs, sizeof regs / sizeof regs[0], 0);
}

static bool add_other_threads(mt_roots_t *r)
{
    query_thread_fn query = (query_thread_fn)(void *)GetProcAddress(GetModuleHandleA("ntdll.dll"),
                                                                    "NtQueryInformationThread");
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return true;
    THREADENTRY32 te = {.dwSize = sizeof te};
    DWORD me = GetCurrentThreadId(), process = GetCurrentProcessId();
    bool ok = true;
    for (BOOL more = Thread32First(snap, &te); more && ok; more = Thread32Next(snap, &te))
        if (te.th32OwnerProcessID == process && te.th32ThreadID != me)
            ok = add_thread(r, te.th32ThreadID, query);
    CloseHandle(snap);
    return ok;
}

bool mt_roots_collect(mt_roots_t *r, uintptr_t stack_from, void *frame, bool at_exit)
{
    memset(r, 0, sizeof *r);
    mt_busy++; /* the snapshots' own allocations, if any, are not the program's */
    bool ok =
        add_modules(r) && add_own_stack(r, stack_from, frame, at_exit) && add_other_threads(r);
    mt_busy--;
    if (!ok)
        mt_roots_free(r);
    return ok;
}

void mt_roots_thread_seen(unsigned number)
{
    (void)number; /* every thread is found with its context (add_other_threads) */
}

void mt_roots_lock_all(void)
{
}

void mt_roots_unlock_all(void)
{
}

bool mt_memory_may_read(uintptr_t addr, size_t n)
{
    (void)addr;
    (void)n;
    return true; /* ReadProcessMemory refuses what cannot be read */
}
#endif /* _WIN32 */
