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
#include "base/symbolize.h"
#include "records/place.h"
#include "records/site.h"
#include "records/stack.h"

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
        /* Decided when the site was made (base/code_map.c), by which its blocks were counted
         * apart from the program's or not (the C++ runtime's are counted as the program's,
         * but listed apart as a system library's). On bare metal no site by address is the
         * C library's: its code is known by the program's image alone. */
        system =
            MT_SMALL(s->library != MT_CODE_PROGRAM, !mt_in_program_image((uintptr_t)s->pc) ||
                                                        mt_in_code_linked_after((uintptr_t)s->pc));
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

static bool pc_is_system(void *pc)
{
    mt_module_t m;
    return mt_symbol_module(pc, &m) && module_is_system(&m);
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
        if (!mt_symbol_module(pcs[i], &m))
            break;
        if (!module_is_system(&m))
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

/* True when return address pc stands for more functions than `level` (its code inlined). */
static bool has_level(void *pc, unsigned level)
{
    mt_symbol_t sym;
    level_t levels[1 + MT_INLINE_MAX];
    return level == 0 || level < frame_levels(pc, pc_is_system(pc), &sym, levels);
}

void *mt_place_function_pc(uint32_t id)
{
    const mt_site_t *s = mt_site_get(id);
    void *const *pcs;
    unsigned n = mt_stack_get(s->stack, &pcs);
    if (s->file == NULL)
        return s->pc;
    caller_at_t at = first_caller(s, pcs, n, shown_frames_end(pcs, n));
    if (at.level > 0)
        return pcs[at.pc]; /* the site's function is one of this address's */
    return at.pc > 0 ? pcs[at.pc - 1] : NULL;
}

void *mt_place_caller_pc(uint32_t id)
{
    const mt_site_t *s = mt_site_get(id);
    void *const *pcs;
    unsigned n = mt_stack_get(s->stack, &pcs);
    caller_at_t at = first_caller(s, pcs, n, shown_frames_end(pcs, n));
    if (at.pc < n && !has_level(pcs[at.pc], at.level))
        at.pc++; /* the site's function was that address's last: the caller is the next */
    return at.pc < n ? pcs[at.pc] : NULL;
}

size_t mt_place_stack(uint32_t id, mt_place_t *out, mt_frame_t *frames, size_t max)
{
    const mt_site_t *s = mt_site_get(id);
    void *const *pcs;
    unsigned n = mt_stack_get(s->stack, &pcs);
    out->stack.frames = frames;
    out->stack.nframes = 0;
    out->inlined = false;
    if (n == 0 || max == 0 || mt_in_crash) /* the crash report calls no loader function */
        return 0;
    unsigned end = shown_frames_end(pcs, n);
    caller_at_t at = first_caller(s, pcs, n, end);
    size_t count = 0, shown = 0;
    for (unsigned i = at.pc; i < end && count < max; i++) {
        mt_module_t m;
        mt_symbol_t sym;
        level_t levels[1 + MT_INLINE_MAX];
        /* The fast unwinder may read a word that is not a return address where a
         * function kept no frame pointer: the stack ends at the first that lies in no
         * module's code. (The place's own address, when the stack starts inside it, is
         * only skipped.) */
        bool system = false;
        unsigned nl = 0;
        if (mt_symbol_module(pcs[i], &m)) {
            system = module_is_system(&m);
            nl = frame_levels(pcs[i], system, &sym, levels);
        }
        if (nl == 0) {
            if (i == at.pc && at.level > 0)
                continue;
            break;
        }
        unsigned from = i == at.pc ? at.level : 0;
        if (from >= nl)
            continue; /* the site's function was this address's last */
        /* Each return address still to come keeps a frame; the functions this one's code
         * was inlined into take what room is left, the outermost kept. */
        size_t room = max - count, later = n - i - 1;
        size_t extra = room > later + 1 ? room - later - 1 : 0;
        if (nl - 1 - from > extra)
            from = nl - 1 - (unsigned)extra;
        if (i == at.pc && at.level > 0)
            out->inlined = true; /* the place's code is inlined into the first frame */
        for (unsigned l = from; l < nl && count < max; l++) {
            mt_frame_t *f = &frames[count++];
            memset(f, 0, sizeof *f);
            f->pc = (uint64_t)(uintptr_t)pcs[i];
            if (m.path != NULL && m.path[0] != '\0' && m.base != program_base_address())
                f->module = m.path;
            if (sym.file != NULL && !system) {
                f->file = levels[l].file;
                f->line = levels[l].line;
                f->func = levels[l].func;
            } else {
                f->func = sym.symbol;
                f->offset = sym.offset;
            }
            f->inlined = l + 1 < nl;
            if (!system)
                shown = count; /* the system's frames below the program's last are left out */
        }
        const mt_frame_t *last = &frames[count - 1];
        if (!system && last->func != NULL && strcmp(last->func, "main") == 0)
            break; /* what called main (the C library's start-up) is nobody's concern */
    }
    out->stack.nframes = shown;
    if (shown == 0)
        out->inlined = false;
    return shown;
}
