/* place.c - turns a site id into the place a report shows: file, line, function, kind and
 * owner for sites the macros named, module and nearest symbol for sites known only by a
 * return address; and tells which places lie inside system libraries.
 *
 * Runs at report time only. The strings it hands out are the site table's (never freed)
 * and the loader's (alive while the module is loaded, which at report time it is).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "internal.h"

/* Directories the system's own libraries live in. A library the user built and loads
 * from elsewhere is the user's code, and so is the program, wherever it is installed. */
static const char *const system_dirs[] = {"/lib/", "/lib64/", "/lib32/", "/usr/lib/",
                                          "/usr/lib64/", "/usr/lib32/", "/usr/libexec/"};

static int first_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    *(uintptr_t *)ctx = (uintptr_t)info->dlpi_addr;
    return 1; /* the loader lists the program first */
}

static bool module_is_system(const Dl_info *info)
{
    static uintptr_t program_base = 1, self_base;
    if (program_base == 1) {
        Dl_info self;
        dl_iterate_phdr(first_object, &program_base);
        if (dladdr((void *)(uintptr_t)&module_is_system, &self) != 0)
            self_base = (uintptr_t)self.dli_fbase;
    }
    uintptr_t base = (uintptr_t)info->dli_fbase;
    if (info->dli_fname == NULL || info->dli_fname[0] == '\0')
        return base != program_base && program_base != 0;
    if (base == self_base)
        return true; /* libmemtrack itself */
    if (program_base == 0 ? false : base == program_base)
        return false;
    if (strstr(info->dli_fname, "ld-linux") != NULL || strstr(info->dli_fname, "vdso") != NULL)
        return true;
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        if (strncmp(info->dli_fname, system_dirs[i], strlen(system_dirs[i])) == 0)
            return true;
    return false;
}

bool mt_place_of(uint32_t id, mt_place_t *out)
{
    const mt_site_t *s = mt_site_get(id);
    bool system = false;
    memset(out, 0, sizeof *out);
    out->kind = id == MT_SITE_NONE ? NULL : mt_kind_names[s->kind];
    out->file = s->file;
    out->line = s->file != NULL ? s->line : 0;
    out->func = s->func;
    out->owner = s->owner;
    if (s->file == NULL && s->pc != NULL) {
        Dl_info info;
        out->pc = (uint64_t)(uintptr_t)s->pc;
        system = true; /* no module at all: the loader's or generated code */
        if (dladdr(s->pc, &info) != 0) {
            if (info.dli_sname != NULL) {
                out->func = info.dli_sname;
                out->offset = (uint64_t)((uintptr_t)s->pc - (uintptr_t)info.dli_saddr);
            }
            if (info.dli_fname != NULL && info.dli_fname[0] != '\0')
                out->module = info.dli_fname;
            system = module_is_system(&info);
        }
    }
    return system;
}
