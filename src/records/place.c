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
#include <string.h>

#include "base/code_map.h"
#include "base/options.h"
#include "base/symbolize.h"
#include "records/place.h"
#include "records/site.h"
#include "records/stack.h"

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
static bool module_is_system(const Dl_info *info)
{
    if (self_base == 0) {
        Dl_info self;
        (void)program_base_address();
        if (dladdr((void *)(uintptr_t)&module_is_system, &self) != 0)
            self_base = (uintptr_t)self.dli_fbase;
    }
    uintptr_t base = (uintptr_t)info->dli_fbase;
    bool unnamed = info->dli_fname == NULL || info->dli_fname[0] == '\0';
    bool is_program = (unnamed && (base == program_base || program_base == 0)) ||
                      (program_base != 0 && base == program_base);
    return mt_module_owner(info->dli_fname, is_program, !is_program && base == self_base) !=
           MT_CODE_PROGRAM;
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
        if (!mt_in_crash && dladdr(s->pc, &info) != 0) { /* dladdr may wait on a lock */
            if (info.dli_sname != NULL) {
                out->func = info.dli_sname;
                out->offset = (uint64_t)((uintptr_t)s->pc - (uintptr_t)info.dli_saddr);
            }
            if (info.dli_fname != NULL && info.dli_fname[0] != '\0')
                out->module = info.dli_fname;
        }
        /* The program's own code by file and line; a system library by module and symbol,
         * whatever debug information it has: there is no source of it to open. A system
         * site is not shown unless system_leaks asks for it, so the debug information is
         * not read for it: a clean run under --preload never opens libdw. */
        mt_symbol_t sym;
        if (!mt_in_crash && (!system || mt_opt.system_leaks) &&
            mt_symbolize(s->pc, &sym)) { /* libdw: not async-signal-safe */
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

/* Where the callers of a site's function start in its stack: at return address pc, its
 * function number level (levels_of); a level past the address's last is the next address. */
typedef struct caller_at {
    unsigned pc, level;
} caller_at_t;

/* The site's own function is found among the frames' functions, inlined ones included (a
 * wrapper written with the _at entry points comes before it); a site known by its address
 * is frame 0's innermost function itself. */
static caller_at_t first_caller(const mt_site_t *s, void *const *pcs, unsigned n)
{
    if (s->file == NULL)
        return n > 0 && pcs[0] == s->pc ? (caller_at_t){0, 1} : (caller_at_t){0, 0};
    for (unsigned i = 0; i < n; i++) {
        mt_symbol_t sym;
        level_t levels[1 + MT_INLINE_MAX];
        if (!mt_symbolize(pcs[i], &sym))
            continue;
        unsigned nl = levels_of(&sym, levels);
        for (unsigned k = 0; k < nl; k++)
            if (names_function(levels[k].func, s->func))
                return (caller_at_t){i, k + 1};
    }
    mt_symbol_t first;
    if (n > 0 && mt_symbolize(pcs[0], &first) && first.line == s->line && first.file != NULL &&
        s->file != NULL && strcmp(first.file, s->file) == 0)
        return (caller_at_t){0, 1};
    return (caller_at_t){0, 0};
}

/* True when return address pc stands for more functions than `level` (its code inlined). */
static bool has_level(void *pc, unsigned level)
{
    mt_symbol_t sym;
    level_t levels[1 + MT_INLINE_MAX];
    return level == 0 || (mt_symbolize(pc, &sym) && level < levels_of(&sym, levels));
}

void *mt_place_function_pc(uint32_t id)
{
    const mt_site_t *s = mt_site_get(id);
    void *const *pcs;
    unsigned n = mt_stack_get(s->stack, &pcs);
    if (s->file == NULL)
        return s->pc;
    caller_at_t at = first_caller(s, pcs, n);
    if (at.level > 0)
        return pcs[at.pc]; /* the site's function is one of this address's */
    return at.pc > 0 ? pcs[at.pc - 1] : NULL;
}

void *mt_place_caller_pc(uint32_t id)
{
    const mt_site_t *s = mt_site_get(id);
    void *const *pcs;
    unsigned n = mt_stack_get(s->stack, &pcs);
    caller_at_t at = first_caller(s, pcs, n);
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
    caller_at_t at = first_caller(s, pcs, n);
    size_t count = 0, shown = 0;
    for (unsigned i = at.pc; i < n && count < max; i++) {
        Dl_info info;
        mt_symbol_t sym;
        /* The fast unwinder may read a word that is not a return address where a
         * function kept no frame pointer: the stack ends at the first that lies in no
         * module's code. (The place's own address, when the stack starts inside it, is
         * only skipped.) */
        if (dladdr(pcs[i], &info) == 0 || !mt_symbolize(pcs[i], &sym)) {
            if (i == at.pc && at.level > 0)
                continue;
            break;
        }
        bool system = module_is_system(&info);
        level_t levels[1 + MT_INLINE_MAX];
        unsigned nl = levels_of(&sym, levels);
        if (system)
            nl = 1; /* a system library's address is its symbol alone */
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
            if (info.dli_fname != NULL && info.dli_fname[0] != '\0' &&
                (uintptr_t)info.dli_fbase != program_base_address())
                f->module = info.dli_fname;
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
