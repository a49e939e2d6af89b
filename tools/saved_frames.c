/* saved_frames.c - frames of a saved report named on the host (saved_frames.h). A frame is
 * found in its module's file by its function's symbol plus its offset (the link-time
 * address, whatever address the module ran at); a static function with namesakes is told by
 * the module's load bias, learnt from a frame whose function has none. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "module_file.h"
#include "saved_frames.h"

enum { MAX_NAMESAKES = 16, MAX_MODULES = 256 };

typedef struct module_slot {
    const char *saved;   /* the module's path as the report has it; NULL: the program */
    module_file_t *file; /* NULL: not found */
} module_slot_t;

struct saved_frames {
    const mt_report_t *report;
    const module_search_t *where;
    module_slot_t slots[MAX_MODULES];
    size_t nslots;
};

/* The last component of a path, Linux's or Windows'. */
static const char *file_name(const char *path)
{
    const char *name = path;
    for (const char *p = path; *p != '\0'; p++)
        if (*p == '/' || *p == '\\')
            name = p + 1;
    return name;
}

/* A path as this machine has it: wine's Z: drive is the root, its \ a /. Other drives
 * (C:, the wine prefix's) are not guessed at: NULL. */
static bool host_path(const char *path, char *out, size_t room)
{
    bool windows = (path[0] != '\0' && path[1] == ':') || strchr(path, '\\') != NULL;
    if (windows && !(path[1] == ':' && (path[0] == 'Z' || path[0] == 'z')))
        return false;
    if (snprintf(out, room, "%s", windows ? path + 2 : path) >= (int)room)
        return false;
    if (windows)
        for (char *p = out; *p != '\0'; p++)
            if (*p == '\\')
                *p = '/';
    return true;
}

/* Opens dir/name (or dir + name when name is absolute), or that with ".exe" (a Windows
 * program names itself without it). */
static module_file_t *try_open(const char *dir, const char *name)
{
    char path[PATH_MAX];
    const char *sep = dir == NULL || name[0] == '/' ? "" : "/";
    if (snprintf(path, sizeof path, "%s%s%s", dir != NULL ? dir : "", sep, name) >=
        (int)sizeof path)
        return NULL;
    module_file_t *m = module_file_open(path);
    if (m == NULL && strlen(path) + 4 < sizeof path && strchr(file_name(path), '.') == NULL) {
        strcat(path, ".exe");
        m = module_file_open(path);
    }
    return m;
}

static module_file_t *find_module(const saved_frames_t *s, const char *saved)
{
    const module_search_t *w = s->where;
    const char *name = saved != NULL ? saved : s->report->program;
    char path[PATH_MAX], cwd[PATH_MAX];
    module_file_t *m = NULL;
    if (name == NULL || name[0] == '\0')
        return NULL;
    for (size_t i = 0; i < w->ndirs && m == NULL; i++)
        m = try_open(w->dirs[i], file_name(name));
    bool here = host_path(name, path, sizeof path);
    if (m == NULL && here && w->sysroot != NULL && path[0] == '/')
        m = try_open(w->sysroot, path);
    if (m == NULL && here && path[0] == '/')
        m = try_open(NULL, path);
    if (m == NULL && here && path[0] != '/' && s->report->cwd != NULL &&
        host_path(s->report->cwd, cwd, sizeof cwd))
        m = try_open(cwd, path);
    if (m == NULL && w->report_path != NULL && strcmp(w->report_path, "-") != 0) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", w->report_path);
        char *slash = strrchr(dir, '/');
        m = try_open(slash != NULL ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".",
                     file_name(name));
    }
    return m;
}

/* The module a frame or place lies in (the program: NULL, or the report's program name). */
static module_file_t *module_of(saved_frames_t *s, const char *saved)
{
    if (saved != NULL && s->report->program != NULL && strcmp(saved, s->report->program) == 0)
        saved = NULL;
    for (size_t i = 0; i < s->nslots; i++) {
        const char *k = s->slots[i].saved;
        if (k == saved || (k != NULL && saved != NULL && strcmp(k, saved) == 0))
            return s->slots[i].file;
    }
    if (s->nslots == MAX_MODULES)
        return NULL;
    module_file_t *m = find_module(s, saved);
    s->slots[s->nslots++] = (module_slot_t){saved, m};
    return m;
}

/* The link-time address of the code at pc, known as func + offset in m; false when m has no
 * such function, or namesakes the load bias does not tell apart (yet: learn). */
static bool link_address(module_file_t *m, const char *func, uint64_t offset, uint64_t pc,
                         bool learn, uint64_t *addr)
{
    module_symbol_t found[MAX_NAMESAKES];
    size_t n = module_file_functions(m, func, offset, found, MAX_NAMESAKES);
    uint64_t bias;
    if (n == 1) {
        *addr = found[0].addr + offset;
        if (learn && pc != 0 && !module_file_bias(m, &bias))
            module_file_set_bias(m, pc - *addr);
        return true;
    }
    if (n == 0 || n > MAX_NAMESAKES || pc == 0 || !module_file_bias(m, &bias))
        return false;
    for (size_t i = 0; i < n; i++)
        if (found[i].addr + offset + bias == pc) {
            *addr = found[i].addr + offset;
            return true;
        }
    return false;
}

/* What the code a frame or place names stands for, innermost first; 0 when it stays. */
static size_t levels_of(saved_frames_t *s, const char *module, const char *func, uint64_t offset,
                        uint64_t pc, bool learn, code_level_t *levels, size_t max)
{
    if (func == NULL || offset == 0)
        return 0; /* named by module offset alone (the crash report's): not looked up */
    module_file_t *m = module_of(s, module);
    uint64_t addr;
    if (m == NULL || !link_address(m, func, offset, pc, learn, &addr))
        return 0;
    size_t n = module_file_lines(m, addr - 1, levels, max); /* the call, before the return */
    if (n > 0 && levels[n - 1].file == NULL)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (levels[i].func == NULL)
            levels[i].func = func;
    return n;
}

static mt_frame_t level_frame(const mt_frame_t *f, const code_level_t *l, bool inlined)
{
    mt_frame_t out = *f;
    out.func = l->func;
    out.file = l->file;
    out.dir = l->dir;
    out.line = l->line;
    out.inlined = inlined;
    return out;
}

/* A place's stack with its frames named, each inlined function a frame of its own; before
 * them (prefix) the functions the place's own code was inlined into. A first frame whose
 * code is the place's own function (own, named by the macros) inlined into its caller
 * (the target saw only the caller's symbol) loses that level: the place is then inlined
 * into the frame that follows (*inlined), as a live report on the host shows it. */
static void name_stack(saved_frames_t *s, mt_stack_t *stack, const code_level_t *prefix,
                       size_t nprefix, const mt_frame_t *prefix_of, const char *own, bool learn,
                       bool *inlined)
{
    enum { LEVELS = MT_REPORT_INLINE_FRAMES + 1 };
    code_level_t(*levels)[LEVELS] = calloc(stack->nframes + 1, sizeof *levels);
    size_t *nlevels = calloc(stack->nframes + 1, sizeof *nlevels);
    size_t room = nprefix + stack->nframes, changed = nprefix;
    for (size_t i = 0; levels != NULL && nlevels != NULL && i < stack->nframes; i++) {
        const mt_frame_t *f = &stack->frames[i];
        if (f->file == NULL)
            nlevels[i] =
                levels_of(s, f->module, f->func, f->offset, f->pc, learn, levels[i], LEVELS);
        room += nlevels[i] > 1 ? nlevels[i] - 1 : 0;
        changed += nlevels[i];
    }
    size_t skip = 0; /* frame 0's levels that are the place's own function */
    for (size_t l = 0; own != NULL && nprefix == 0 && levels != NULL && nlevels != NULL &&
                       stack->nframes > 0 && l + 1 < nlevels[0];
         l++)
        if (levels[0][l].func != NULL && strcmp(levels[0][l].func, own) == 0)
            skip = l + 1;
    mt_frame_t *out = NULL;
    if (changed > 0 && levels != NULL && nlevels != NULL) {
        if (room > MT_REPORT_MAX_FRAMES)
            room = MT_REPORT_MAX_FRAMES;
        out = calloc(room, sizeof *out);
    }
    if (out != NULL) {
        size_t k = 0;
        for (size_t i = 0; i < nprefix && k < room; i++)
            out[k++] = level_frame(prefix_of, &prefix[i], i + 1 < nprefix);
        for (size_t i = 0; i < stack->nframes && k < room; i++) {
            const mt_frame_t *f = &stack->frames[i];
            if (nlevels[i] == 0)
                out[k++] = *f;
            for (size_t l = i == 0 ? skip : 0; l < nlevels[i] && k < room; l++)
                out[k++] = level_frame(f, &levels[i][l], l + 1 < nlevels[i] || f->inlined);
        }
        free((void *)stack->frames); /* the report reader's (report_release frees the new one) */
        stack->frames = out;
        stack->nframes = k;
        *inlined = skip > 0;
    }
    free(levels);
    free(nlevels);
}

/* A place known by its address (a site of code built without the header), then its stack. */
static void name_place(saved_frames_t *s, mt_place_t *p, bool learn)
{
    code_level_t levels[MT_REPORT_INLINE_FRAMES + 1];
    size_t n = 0;
    if (p->file == NULL && p->pc != 0)
        n = levels_of(s, p->module, p->func, p->offset, p->pc, learn, levels,
                      MT_REPORT_INLINE_FRAMES + 1);
    mt_frame_t as_frame = {.pc = p->pc, .module = p->module, .offset = p->offset};
    if (n > 0) {
        p->func = levels[0].func;
        p->file = levels[0].file;
        p->dir = levels[0].dir;
        p->line = levels[0].line;
    }
    bool inlined = false;
    name_stack(s, &p->stack, n > 1 ? levels + 1 : NULL, n > 1 ? n - 1 : 0, &as_frame,
               p->file != NULL && n == 0 ? p->func : NULL, learn, &inlined);
    if ((n > 1 || inlined) && p->stack.nframes > 0)
        p->inlined = true; /* its code is inlined into the first frame */
}

/* Every place of the report; the first pass (learn) names what needs no load bias and learns
 * the biases, the second what needs them. */
static void name_all(saved_frames_t *s, mt_report_t *r, bool learn)
{
    for (size_t i = 0; i < r->nsites; i++)
        name_place(s, &r->sites[i].where, learn);
    for (size_t i = 0; i < r->nerror_list; i++) {
        name_place(s, &r->error_list[i].alloc, learn);
        name_place(s, &r->error_list[i].freed, learn);
        name_place(s, &r->error_list[i].found, learn);
    }
    for (size_t i = 0; i < r->nnot_printed; i++)
        name_place(s, &r->not_printed[i].found, learn);
    for (size_t i = 0; i < r->nunwritten; i++)
        name_place(s, &r->unwritten[i].where, learn);
    for (size_t i = 0; i < r->injected.nsites; i++)
        name_place(s, &r->injected.sites[i].where, learn);
}

saved_frames_t *saved_frames_name(mt_report_t *r, const module_search_t *where)
{
    saved_frames_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->report = r;
    s->where = where;
    name_all(s, r, true);
    name_all(s, r, false);
    return s;
}

void saved_frames_release(saved_frames_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->nslots; i++)
        module_file_close(s->slots[i].file);
    free(s);
}
