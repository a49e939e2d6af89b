/* place.c - turns a site id into the place a report shows: file, line, function, kind and
 * owner for sites the macros named, module and nearest symbol for sites known only by a
 * return address; and tells which places lie inside system libraries.
 *
 * Runs at report time only. The strings it hands out are the site table's (never freed),
 * the loader's (alive while the module is loaded, which at report time it is) and the
 * symbolizer's (never freed). A site known only by address gets its file, line and
 * function from the debug information when there is some (symbolize.c).
 *
 * The C++ standard library is a system library wherever it is installed (a toolchain in
 * /opt has its own libstdc++): the blocks it makes with the program's operator new and
 * keeps until exit (the locales std::cout holds, for one) are not the program's leaks.
 * A leak of the program's that owns such blocks is still reported, by the program's own
 * allocation of the owner.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "base/code_map.h"
#include "base/options.h"
#include "base/runtime.h"
#include "base/unwind.h"
#include "base/symbolize.h"
#include "records/place.h"
#include "records/site.h"
#include "records/stack.h"
#include "records/wrapper.h"

/* The program's code, [start, end), taken at load time: the crash report cannot ask the
 * loader (dladdr may wait on a lock the crashed thread holds), but can compare addresses. */
static uintptr_t program_code_start, program_code_end;

static int program_code(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    (void)ctx;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        if (program_code_start == 0 || start < program_code_start)
            program_code_start = start;
        if (start + ph->p_memsz > program_code_end)
            program_code_end = start + (uintptr_t)ph->p_memsz;
    }
    return 1; /* the loader lists the program first */
}

static uintptr_t program_base_address(void);

void mt_place_prepare(void)
{
    if (program_code_end == 0)
        dl_iterate_phdr(program_code, NULL);
    (void)program_base_address(); /* known before a crash report needs it */
}
static int first_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    *(uintptr_t *)ctx = (uintptr_t)info->dlpi_addr;
    return 1; /* the loader lists the program first */
}

static uintptr_t program_base = 1, self_base;

/* The program's load address (0 for a program not built as PIE). */
static uintptr_t program_base_address(void)
{
    if (program_base == 1)
        dl_iterate_phdr(first_object, &program_base);
    return program_base;
}

/* The module of a frame, by the one rule (base/code_map.h). The program is the module
 * without a name, or the one loaded where the loader's first module is. */
static bool module_is_system(const mt_module_t *m)
{
    if (self_base == 0) {
        Dl_info self;
        (void)program_base_address();
        if (dladdr((void *)(uintptr_t)&module_is_system, &self) != 0)
            self_base = (uintptr_t)self.dli_fbase;
    }
    uintptr_t base = m->base;
    bool unnamed = m->path == NULL || m->path[0] == '\0';
    bool is_program = (unnamed && (base == program_base || program_base == 0)) ||
                      (program_base != 0 && base == program_base);
    return mt_module_owner(m->path, is_program, !is_program && base == self_base) !=
           MT_CODE_PROGRAM;
}

/* In the crash report, a site known by its address alone: in the program's code, it is
 * named as an earlier lookup named it (file and line), or else by the program and the
 * offset from its load address (what addr2line -e PROGRAM takes): nothing is looked up
 * there. Returns whether pc is the program's code. */
static bool crash_place_in_program(void *pc, mt_place_t *out)
{
    uintptr_t at = (uintptr_t)pc;
    if (at < program_code_start || at >= program_code_end || mt_in_code_linked_after(at))
        return false;
    mt_symbol_t sym;
    if (mt_symbolize_cached(pc, &sym) && sym.file != NULL) {
        out->file = sym.file;
        out->line = sym.line;
        out->func = sym.func;
    } else if (sym.symbol != NULL) {
        out->func = sym.symbol;
        out->offset = sym.offset;
        out->module = sym.module;
    } else {
        out->module = mt_program_name();
        out->offset = (uint64_t)(at - (program_base != 1 ? program_base : 0));
    }
    return true;
}

bool mt_place_in_runtime(uint32_t id)
{
    const mt_site_t *s = mt_site_get(id);
    if (s->file != NULL || s->pc == NULL)
        return false; /* the macros' sites are the program's own */
    uintptr_t pc = (uintptr_t)s->pc;
    if (mt_in_code_linked_after(pc))
        return true; /* a static link: the C library linked after libmemtrack */
    if (mt_in_program_image(pc))
        return false;
    Dl_info info;
    if (dladdr(s->pc, &info) == 0 || info.dli_fname == NULL)
        return true; /* no module: the loader's or generated code */
    (void)module_is_system(
        &(mt_module_t){info.dli_fname, (uintptr_t)info.dli_fbase}); /* self_base */
    return (uintptr_t)info.dli_fbase == self_base || mt_module_is_runtime(info.dli_fname);
}

bool mt_place_listed(const char *list, const char *file, long line)
{
    size_t flen = file != NULL ? strlen(file) : 0;
    for (const char *e = list; file != NULL && *e != '\0';) {
        size_t n = strcspn(e, " ");
        const char *colon = e + n;
        while (colon > e && *colon != ':')
            colon--;
        size_t elen = (size_t)(colon - e);
        if (atol(colon + 1) == line && elen <= flen && strncmp(file + flen - elen, e, elen) == 0 &&
            (elen == flen || file[flen - elen - 1] == '/'))
            return true;
        e += n;
        e += *e == ' ';
    }
    return false;
}

bool mt_place_is_system(uint32_t id)
{
    const mt_site_t *s = mt_site_get(id);
    if (s->file != NULL || s->pc == NULL)
        return false;
    /* Decided when the site was made (base/code_map.c), by which its blocks were counted
     * apart from the program's or not (the C++ runtime's are counted as the program's,
     * but listed apart as a system library's). On bare metal no site by address is the
     * C library's: its code is known by the program's image alone. */
    return MT_SMALL(s->library != MT_CODE_PROGRAM, !mt_in_program_image((uintptr_t)s->pc) ||
                                                       mt_in_code_linked_after((uintptr_t)s->pc));
}

bool mt_place_of(uint32_t id, mt_place_t *out)
{
    const mt_site_t *s = mt_site_get(id);
    bool system = false;
    memset(out, 0, sizeof *out);
    out->kind = id == MT_SITE_NONE ? NULL : mt_kind_names[s->kind];
    out->kind_id = id == MT_SITE_NONE ? MT_KIND_NONE : (int)s->kind;
    out->file = s->file;
    out->line = s->file != NULL ? s->line : 0;
    out->func = s->func;
    out->owner = s->owner;
    if (s->file == NULL && s->pc != NULL) {
        Dl_info info;
        out->pc = (uint64_t)(uintptr_t)s->pc;
        system = mt_place_is_system(id);
        if (mt_in_crash) /* no loader call: the program's code is known by its range */
            (void)crash_place_in_program(s->pc, out);
        else if (dladdr(s->pc, &info) != 0) { /* dladdr may wait on a lock */
            if (info.dli_sname != NULL) {
                out->func = info.dli_sname;
                out->offset = (uint64_t)((uintptr_t)s->pc - (uintptr_t)info.dli_saddr);
            }
            if (info.dli_fname != NULL && info.dli_fname[0] != '\0')
                out->module = info.dli_fname;
        }
        /* The program's own code by file and line; a system library by module and symbol,
         * whatever debug information it has: there is no source of it to open, and its
         * line tables are never read. A system site is not shown unless system_leaks asks
         * for it, so nothing is read for it: a clean run under --preload never opens libdw. */
        mt_symbol_t sym;
        if (!mt_in_crash && (!system || mt_opt.system_leaks) &&
            (system ? mt_symbolize_symbol(s->pc, &sym)
                    : mt_symbolize(s->pc, &sym))) { /* libdw: not async-signal-safe */
            if (sym.file != NULL && !system) {
                out->file = sym.file;
                out->dir = sym.dir;
                out->line = sym.line;
                out->func = sym.func;
                out->offset = 0;
            } else if (sym.symbol != NULL) {
                out->func = sym.symbol;
                out->offset = sym.offset;
            }
        }
    }
    return system;
}

/* ---- stacks ----------------------------------------------------------------------------- */

/* True when the symbolizer's name for a function is the site's __func__: the same, or a
 * C++ qualified name ending with it ("ns::Pool::grow" for "grow"). */
static bool names_function(const char *symbolized, const char *func)
{
    if (symbolized == NULL || func == NULL)
        return false;
    size_t a = strlen(symbolized), b = strlen(func);
    return strcmp(symbolized, func) == 0 ||
           (a > b + 2 && strcmp(symbolized + a - b, func) == 0 && symbolized[a - b - 1] == ':');
}

/* A return address's functions: the innermost first, then those its code was inlined
 * into, each at the line of the inlined call; the last is the real function, whose call
 * the address returns from. A system library's address is its symbol alone. */
typedef struct level {
    const char *file;
    long line;
    const char *func;
} level_t;

static unsigned levels_of(const mt_symbol_t *sym, level_t out[1 + MT_INLINE_MAX])
{
    out[0] = (level_t){sym->file, sym->line, sym->func};
    unsigned n = 0;
#if MT_INLINE_MAX > 0 /* none where no libdw names them (base/symbolize.h) */
    if (sym->file != NULL)
        n = sym->ninlined < MT_INLINE_MAX ? sym->ninlined : MT_INLINE_MAX;
    for (unsigned k = 0; k < n; k++)
        out[k + 1] = (level_t){sym->inlined[k].file, sym->inlined[k].line, sym->inlined[k].func};
#endif
    return 1 + n;
}

/* The functions return address pc is shown as (levels_of), into levels, with its symbol in
 * *sym; 0 when nothing is known of it. A system library's address is its symbol alone:
 * its line tables are never read. */
static unsigned frame_levels(void *pc, bool system, mt_symbol_t *sym,
                             level_t levels[1 + MT_INLINE_MAX])
{
    if (system) {
        if (!mt_symbolize_symbol(pc, sym))
            return 0;
        levels[0] = (level_t){NULL, 0, sym->symbol};
        return 1;
    }
    return mt_symbolize(pc, sym) ? levels_of(sym, levels) : 0;
}

/* The module of return address pc, and whether it is the system's: the loader's answer, or
 * in a program linked statically (musl), whose loader knows no modules, the program's image,
 * where the code linked after libmemtrack's is the C library's and the libraries' named after
 * libmemtrack.a. False when pc lies in no module. */
static bool frame_module(void *pc, mt_module_t *m, bool *system)
{
    if (mt_symbol_module(pc, m)) {
        *system = module_is_system(m);
        return true;
    }
    if (!mt_in_program_image((uintptr_t)pc))
        return false;
    m->path = NULL;
    m->base = program_base_address();
    *system = mt_in_code_linked_after((uintptr_t)pc);
    return true;
}

static bool pc_is_system(void *pc)
{
    mt_module_t m;
    bool system;
    return frame_module(pc, &m, &system) && system;
}

/* How many of a stack's frames may be shown: up to the program's last (a frame outside
 * the system's libraries) among those before the first in no module. The system's frames
 * after it (the C library's start-up below main, a thread's start) are left out, so they
 * are never symbolized: only the loader is asked where they lie. */
static unsigned shown_frames_end(void *const *pcs, unsigned n)
{
    unsigned end = 0;
    for (unsigned i = 0; i < n; i++) {
        mt_module_t m;
        bool system;
        if (!frame_module(pcs[i], &m, &system))
            break;
        if (!system)
            end = i + 1;
    }
    return end;
}

/* Where the callers of a site's function start in its stack: at return address pc, its
 * function number level (levels_of); a level past the address's last is the next address. */
typedef struct caller_at {
    unsigned pc, level;
} caller_at_t;

/* The site's own function is found among the frames' functions, inlined ones included (a
 * wrapper written with the _at entry points comes before it), in the frames that may be
 * shown (end: shown_frames_end); a site known by its address is frame 0's innermost
 * function itself. */
static caller_at_t first_caller(const mt_site_t *s, void *const *pcs, unsigned n, unsigned end)
{
    if (s->file == NULL)
        return n > 0 && pcs[0] == s->pc ? (caller_at_t){0, 1} : (caller_at_t){0, 0};
    for (unsigned i = 0; i < end; i++) {
        mt_symbol_t sym;
        level_t levels[1 + MT_INLINE_MAX];
        unsigned nl = frame_levels(pcs[i], pc_is_system(pcs[i]), &sym, levels);
        for (unsigned k = 0; k < nl; k++)
            if (names_function(levels[k].func, s->func))
                return (caller_at_t){i, k + 1};
    }
    mt_symbol_t first;
    if (end > 0 && !pc_is_system(pcs[0]) && mt_symbolize(pcs[0], &first) && first.line == s->line &&
        first.file != NULL && s->file != NULL && strcmp(first.file, s->file) == 0)
        return (caller_at_t){0, 1};
    return (caller_at_t){0, 0};
}

/* A frame's origin: return address pcs[pc]'s function number level (levels_of). */
typedef struct origin {
    unsigned char pc, level;
    bool system; /* in a system library */
} origin_t;
_Static_assert(MT_WALK_MAX <= 255 && MT_INLINE_MAX < 255, "an origin fits two bytes");

/* Resolves pcs[at.pc..end) into frames[0..max), the place's own function (at) left out, each
 * with its origin, and stops after main; returns how many, and in *shown how many come
 * before the system's frames below the program's last (end: shown_frames_end, so those are
 * never symbolized). *inlined: the place's code is inlined into frames[0]. */
static size_t resolve_frames(const caller_at_t at, void *const *pcs, unsigned n, unsigned end,
                             mt_frame_t *frames, origin_t *origins, size_t max, size_t *shown,
                             bool *inlined)
{
    size_t count = 0;
    *shown = 0;
    *inlined = false;
    for (unsigned i = at.pc; i < end && count < max; i++) {
        mt_module_t m;
        mt_symbol_t sym;
        level_t levels[1 + MT_INLINE_MAX];
        /* The fast unwinder may read a word that is not a return address where a
         * function kept no frame pointer: the stack ends at the first that lies in no
         * module (a stack new to the process ends before it anyway: base/code_map.c).
         * (The place's own address, when the stack starts inside it, is only skipped.) An
         * address no symbol covers (the signal trampoline a handler returns to) is left
         * out: what comes after it is the interrupted code. */
        bool system;
        if (!frame_module(pcs[i], &m, &system)) {
            if (i == at.pc && at.level > 0)
                continue;
            break;
        }
        unsigned nl = frame_levels(pcs[i], system, &sym, levels);
        if (nl == 0)
            continue;
        unsigned from = i == at.pc ? at.level : 0;
        if (from >= nl) { /* the site's function was this address's last */
            if (!system && levels[nl - 1].func != NULL && strcmp(levels[nl - 1].func, "main") == 0)
                break; /* the site is in main: below it, the C library's start-up (arm64's
                          C library keeps frame records, so the walk goes on into it) */
            continue;
        }
        /* Each return address still to come keeps a frame; the functions this one's code
         * was inlined into take what room is left, the outermost kept. */
        size_t room = max - count, later = n - i - 1;
        size_t extra = room > later + 1 ? room - later - 1 : 0;
        if (nl - 1 - from > extra)
            from = nl - 1 - (unsigned)extra;
        if (i == at.pc && at.level > 0)
            *inlined = true; /* the place's code is inlined into the first frame */
        for (unsigned l = from; l < nl && count < max; l++) {
            mt_frame_t *f = &frames[count];
            origins[count++] = (origin_t){(unsigned char)i, (unsigned char)l, system};
            memset(f, 0, sizeof *f);
            f->pc = (uint64_t)(uintptr_t)pcs[i];
            if (m.path != NULL && m.path[0] != '\0' && m.base != program_base_address())
                f->module = m.path;
            if (sym.file != NULL && !system) {
                f->file = levels[l].file;
                f->dir = sym.dir;
                f->line = levels[l].line;
                f->func = levels[l].func;
            } else {
                f->func = sym.symbol;
                f->offset = sym.offset;
            }
            f->inlined = l + 1 < nl;
            if (!system)
                *shown = count; /* the system's frames below the program's last are left out */
        }
        const mt_frame_t *last = &frames[count - 1];
        if (!system && last->func != NULL && strcmp(last->func, "main") == 0)
            break; /* what called main (the C library's start-up) is nobody's concern */
    }
    return count;
}

/* The place becomes frame f. A frame names no module in the program (a place known by its
 * address names the program's): a place moving within the program keeps it. */
static bool in_program_code(uint64_t pc)
{
    mt_place_prepare();
    return pc >= program_code_start && pc < program_code_end;
}

static void place_at_frame(mt_place_t *p, const mt_frame_t *f)
{
    if (f->module != NULL || !in_program_code(p->pc) || !in_program_code(f->pc))
        p->module = f->module;
    p->file = f->file;
    p->dir = f->dir;
    p->line = f->line;
    p->func = f->func;
    p->pc = f->pc;
    p->offset = f->offset;
    p->inlined = f->inlined;
}

/* The place's own function: where its site is in the stack (at), or, for a site whose
 * function is not there, its source line (a tail call: the function jumped to the
 * allocation). */
static mt_function_ref_t place_function(const mt_site_t *s, const mt_place_t *p, caller_at_t at,
                                        void *const *pcs)
{
    mt_function_ref_t fn = {p->func, p->file, (int)p->line, NULL, 0, NULL};
    if (s->file == NULL) {
        fn.pc = s->pc;
    } else if (at.level > 0) {
        fn.pc = pcs[at.pc];
        fn.level = at.level - 1;
    } else {
#ifndef MT_BARE_METAL
        fn.module_hint = s->func_key; /* __func__ lies in the function's own module */
#endif
    }
    return fn;
}

/* Two functions that print alike (and that one's code was inlined into the other: GCC's
 * partial inlining splits a function in two, its head inlined into its callers and its body
 * out of line, and its debug information names it for both, which reads as a call to
 * itself). */
static bool same_function(const char *a, const char *b, const char *file_a, const char *file_b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0 &&
           (file_a == file_b || (file_a != NULL && file_b != NULL && strcmp(file_a, file_b) == 0));
}

/* Drops from frames[0..count) each frame that names the function before it when either was
 * inlined (the place itself too, against frames[0]): the innermost line stays. Returns the
 * new count. */
static size_t collapse_inlined(mt_place_t *p, mt_frame_t *frames, origin_t *origins, size_t count)
{
    size_t from = 0;
    if (count > 0 && (p->inlined || frames[0].inlined) &&
        same_function(p->func, frames[0].func, p->file, frames[0].file)) {
        p->inlined = frames[0].inlined;
        from = 1;
    }
    size_t kept = 0;
    for (size_t i = from; i < count; i++) {
        mt_frame_t *last = kept > 0 ? &frames[kept - 1] : NULL;
        if (last != NULL && (last->inlined || frames[i].inlined) &&
            same_function(last->func, frames[i].func, last->file, frames[i].file)) {
            last->inlined = frames[i].inlined;
            continue;
        }
        origins[kept] = origins[i];
        frames[kept++] = frames[i];
    }
    return kept;
}

/* The frames of the first `depth` return addresses of frames[0..count) (with the functions
 * inlined into them): what option stack asks for after the wrappers. */
static size_t first_calls(const mt_frame_t *frames, size_t count, size_t depth)
{
    size_t calls = 0;
    for (size_t i = 0; i < count; i++) {
        if (!frames[i].inlined && ++calls == depth)
            return i + 1;
    }
    return count;
}

size_t mt_place_stack(uint32_t id, mt_place_t *out, mt_frame_t *frames, size_t max,
                      mt_wrapper_note_fn note, void *ctx)
{
    const mt_site_t *s = mt_site_get(id);
    void *const *pcs;
    unsigned n = mt_stack_get(s->stack, &pcs);
    out->stack.frames = frames;
    out->stack.nframes = 0;
    out->inlined = false;
    if (n == 0 || max == 0 || mt_in_crash) /* the crash report calls no loader function */
        return 0;
    if (max > MT_STACK_ROOM(MT_WALK_MAX))
        max = MT_STACK_ROOM(MT_WALK_MAX);
    if (n > MT_WALK_MAX)
        n = MT_WALK_MAX;
    origin_t origins[MT_STACK_ROOM(MT_WALK_MAX)];
    unsigned end = shown_frames_end(pcs, n);
    caller_at_t at = first_caller(s, pcs, n, end);
    mt_symbol_t sym;
    if (out->dir == NULL && s->file != NULL && at.level > 0 && !pc_is_system(pcs[at.pc]) &&
        mt_symbolize(pcs[at.pc], &sym))
        out->dir = sym.dir; /* the macro's __FILE__ is relative to its unit's directory */
    size_t shown;
    size_t count = resolve_frames(at, pcs, n, end, frames, origins, max, &shown, &out->inlined);
    shown = collapse_inlined(out, frames, origins, shown);

    /* The place made inside an allocation wrapper is shown at the wrapper's caller, and at
     * that one's caller while it is a wrapper too, or a system library's code (a library the
     * program gave its allocator to: the program's own line that called it is the one to
     * fix; within `shown`, the last frame is the program's). */
    size_t first = 0;
    mt_function_ref_t fn = place_function(s, out, at, pcs);
    while (first < shown) {
        mt_through_t why = first > 0 && origins[first - 1].system
                               ? MT_THROUGH_SYSTEM
                               : mt_wrapper_through(&fn, s->kind);
        if (why == MT_THROUGH_NONE)
            break;
        if (note != NULL)
            note(ctx, out, why);
        const mt_frame_t *f = &frames[first];
        place_at_frame(out, f);
        fn = (mt_function_ref_t){
            f->func, f->file, (int)f->line, pcs[origins[first].pc], origins[first].level, NULL};
        first++;
    }
    size_t depth = mt_opt.stack < MT_STACK_MAX ? mt_opt.stack : MT_STACK_MAX;
    out->stack.frames = frames + first;
    size_t kept = first_calls(frames + first, shown - first, depth);
    out->stack.nframes = kept < MT_STACK_ROOM(depth) ? kept : MT_STACK_ROOM(depth);
    if (out->stack.nframes == 0)
        out->inlined = false;
    return count > shown ? count : shown;
}

bool mt_place_stacks_stop_short(unsigned depth)
{
    /* A whole stack reaches the C library's start of the program or of a thread (or fills
     * the walk's depth): where is the C library? */
    mt_module_t libc;
    if (!mt_symbol_module((void *)(uintptr_t)&abort, &libc) || libc.base == program_base_address())
        return false; /* (a static program: no module tells the C library's code) */
    uint32_t count = mt_site_count();
    unsigned whole = 0, cut = 0;
    for (uint32_t id = 1; id < count; id++) {
        const mt_site_t *s = mt_site_get(id);
        void *const *pcs;
        mt_module_t m;
        unsigned n = mt_stack_get(s->stack, &pcs);
        /* The program's sites only: the system's code is built without frame pointers */
        if (n == 0 || (s->file == NULL && (!mt_symbol_module(s->pc, &m) || module_is_system(&m))))
            continue;
        /* (the C library's start is the last return address, or, where it keeps frame
         * records, the C library is passed on the way to the program's _start) */
        bool reached = n >= depth;
        for (unsigned k = n; k-- > 1 && !reached;)
            reached = mt_symbol_module(pcs[k], &m) && m.base == libc.base;
        if (reached)
            whole++;
        else
            cut++;
    }
    return cut > whole;
}
