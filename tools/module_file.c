/* module_file.c - a program or library file read on the host (module_file.h): ELF through
 * libelf, PE through pe_file.c; functions by name from the symbol tables, sorted by name;
 * source lines and inlined functions from the DWARF through libdw, offline (no process). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dw_lib.h"
#include "module_file.h"
#include "pe_file.h"

enum { MAX_MODULE_BYTES = 1 << 30 }; /* a PE read whole: larger is not a program's */

struct module_file {
    int fd;                /* the ELF file libelf reads, or -1 */
    Elf *elf;              /* that ELF, or the PE's DWARF as an ELF image */
    Dwarf *dwarf;          /* NULL without debug information */
    pe_file_t pe;          /* a PE file's functions and DWARF */
    module_symbol_t *syms; /* by name */
    size_t nsyms;
    char **kept; /* strings given out, freed at close */
    size_t nkept, kept_room;
    bool has_bias;
    uint64_t bias;
};

static int by_name(const void *x, const void *y)
{
    const module_symbol_t *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c != 0 ? c : (a->addr > b->addr) - (a->addr < b->addr);
}

/* The functions of an ELF file's symbol tables (.symtab, else .dynsym: a stripped file). */
static void elf_functions_of(module_file_t *m, Elf64_Word want)
{
    GElf_Ehdr eh;
    if (dw.gelf_getehdr(m->elf, &eh) == NULL)
        return;
    for (Elf_Scn *scn = dw.elf_nextscn(m->elf, NULL); scn != NULL;
         scn = dw.elf_nextscn(m->elf, scn)) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (dw.gelf_getshdr(scn, &sh) == NULL || sh.sh_type != want || sh.sh_entsize == 0 ||
            (data = dw.elf_getdata(scn, NULL)) == NULL)
            continue;
        size_t n = sh.sh_size / sh.sh_entsize;
        module_symbol_t *syms = realloc(m->syms, (m->nsyms + n + 1) * sizeof *syms);
        if (syms == NULL)
            return;
        m->syms = syms;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            const char *name;
            if (dw.gelf_getsym(data, (int)i, &s) == NULL ||
                (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
                s.st_shndx == SHN_UNDEF ||
                (name = dw.elf_strptr(m->elf, sh.sh_link, s.st_name)) == NULL || name[0] == '\0')
                continue;
            uint64_t addr = eh.e_machine == EM_ARM ? s.st_value & ~(uint64_t)1 : s.st_value;
            m->syms[m->nsyms++] = (module_symbol_t){name, addr, s.st_size};
        }
    }
}

static void elf_functions(module_file_t *m)
{
    elf_functions_of(m, SHT_SYMTAB);
    if (m->nsyms == 0)
        elf_functions_of(m, SHT_DYNSYM);
}

static bool read_whole(int fd, size_t size, unsigned char **out)
{
    unsigned char *buf = malloc(size + 1);
    size_t got = 0;
    while (buf != NULL && got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (buf == NULL || got != size) {
        free(buf);
        return false;
    }
    *out = buf;
    return true;
}

module_file_t *module_file_open(const char *path)
{
    if (!dw_lib_open())
        return NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    unsigned char magic[4];
    if (fd < 0)
        return NULL;
    module_file_t *m = calloc(1, sizeof *m);
    if (m == NULL || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        pread(fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic)
        goto fail;
    m->fd = -1;
    if (memcmp(magic, "\177ELF", 4) == 0) {
        m->elf = dw.elf_begin(fd, ELF_C_READ_MMAP, NULL);
        if (m->elf == NULL || dw.elf_kind(m->elf) != ELF_K_ELF)
            goto fail;
        m->fd = fd;
        elf_functions(m);
    } else if (magic[0] == 'M' && magic[1] == 'Z' && st.st_size < MAX_MODULE_BYTES) {
        unsigned char *image = NULL;
        bool pe = read_whole(fd, (size_t)st.st_size, &image) &&
                  pe_file_read(image, (size_t)st.st_size, &m->pe);
        free(image); /* what the tool keeps of it was copied */
        if (!pe)
            goto fail;
        close(fd);
        m->syms = m->pe.syms;
        m->nsyms = m->pe.nsyms;
        m->pe.syms = NULL; /* m's now */
        if (m->pe.debug_elf != NULL)
            m->elf = dw.elf_memory((char *)m->pe.debug_elf, m->pe.debug_elf_size);
    } else {
        goto fail;
    }
    if (m->elf != NULL)
        m->dwarf = dw.dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
    if (m->nsyms > 1)
        qsort(m->syms, m->nsyms, sizeof *m->syms, by_name);
    return m;
fail:
    if (m != NULL && m->elf != NULL)
        dw.elf_end(m->elf);
    free(m);
    close(fd);
    return NULL;
}

void module_file_close(module_file_t *m)
{
    if (m == NULL)
        return;
    if (m->dwarf != NULL)
        dw.dwarf_end(m->dwarf);
    if (m->elf != NULL)
        dw.elf_end(m->elf);
    if (m->fd >= 0)
        close(m->fd);
    for (size_t i = 0; i < m->nkept; i++)
        free(m->kept[i]);
    free(m->kept);
    free(m->syms);
    pe_file_free(&m->pe);
    free(m);
}

size_t module_file_functions(const module_file_t *m, const char *name, uint64_t offset,
                             module_symbol_t *out, size_t max)
{
    size_t lo = 0, hi = m->nsyms, n = 0;
    while (lo < hi) { /* the first of that name */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(m->syms[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < m->nsyms && strcmp(m->syms[i].name, name) == 0; i++) {
        const module_symbol_t *s = &m->syms[i];
        if (s->size != 0 && offset > s->size) /* a return address may end a function */
            continue;
        if (i > lo && s->addr == m->syms[i - 1].addr)
            continue; /* .symtab and an alias at the same address */
        if (n < max)
            out[n] = *s;
        n++;
    }
    return n;
}

static const char *keep(module_file_t *m, const char *s, size_t len)
{
    if (m->nkept == m->kept_room) {
        size_t room = m->kept_room != 0 ? m->kept_room * 2 : 64;
        char **kept = realloc(m->kept, room * sizeof *kept);
        if (kept == NULL)
            return NULL;
        m->kept = kept;
        m->kept_room = room;
    }
    char *copy = strndup(s, len);
    if (copy != NULL)
        m->kept[m->nkept++] = copy;
    return copy;
}

static const char *comp_dir(Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    return dw.dwarf_attr(cu, DW_AT_comp_dir, &attr) != NULL ? dw.dwarf_formstring(&attr) : NULL;
}

/* A source path as the compiler was given it (what __FILE__ says): relative to the unit's
 * compilation directory when inside it, as the library names it in a live report. */
static const char *source_path(module_file_t *m, const char *dir, const char *file)
{
    if (file == NULL)
        return NULL;
    size_t dn = dir != NULL ? strlen(dir) : 0;
    if (dn > 0 && strncmp(file, dir, dn) == 0 && file[dn] == '/')
        file += dn + 1;
    while (file[0] == '.' && file[1] == '/')
        file += 2;
    return keep(m, file, strlen(file));
}

static const char *scope_name(Dwarf_Die *scope)
{
    Dwarf_Attribute attr;
    return dw.dwarf_attr_integrate(scope, DW_AT_name, &attr) != NULL ? dw.dwarf_formstring(&attr)
                                                                     : NULL;
}

enum { MAX_DEPTH = 64, MAX_DIES = 1 << 20 };

/* The functions whose code holds addr, outermost first: the subprogram, then each inlined
 * copy inside it (libdw's dwarf_getscopes leaves an inlined copy for its abstract
 * definition's scopes, so the tree is walked here). Returns how many, at most max. */
static size_t function_chain(Dwarf_Die *cu, uint64_t addr, Dwarf_Die *chain, size_t max)
{
    Dwarf_Die die = *cu, child;
    size_t n = 0, seen = 0;
    for (unsigned depth = 0; depth < MAX_DEPTH && dw.dwarf_child(&die, &child) == 0; depth++) {
        bool inside = false;
        do {
            int tag = dw.dwarf_tag(&child);
            if (++seen > MAX_DIES)
                return n;
            if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
                 tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
                 tag == DW_TAG_catch_block) &&
                dw.dwarf_haspc(&child, addr) > 0) {
                inside = true;
                break;
            }
        } while (dw.dwarf_siblingof(&child, &child) == 0);
        if (!inside)
            break;
        int tag = dw.dwarf_tag(&child);
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) && n < max)
            chain[n++] = child;
        die = child;
    }
    return n;
}

size_t module_file_lines(module_file_t *m, uint64_t addr, code_level_t *levels, size_t max)
{
    Dwarf_Die cu, chain[MAX_DEPTH];
    if (m->dwarf == NULL || max == 0 || dw.dwarf_addrdie(m->dwarf, addr, &cu) == NULL)
        return 0;
    const char *dir = comp_dir(&cu);
    const char *file = NULL;
    int lineno = 0;
    Dwarf_Line *line = dw.dwarf_getsrc_die(&cu, addr);
    if (line != NULL && dw.dwarf_lineno(line, &lineno) == 0)
        file = dw.dwarf_linesrc(line, NULL, NULL);
    size_t n = 0, depth = function_chain(&cu, addr, chain, MAX_DEPTH);
    for (size_t i = depth; i-- > 0 && n < max;) { /* innermost first */
        const char *name = scope_name(&chain[i]);
        levels[n++] = (code_level_t){name != NULL ? keep(m, name, strlen(name)) : NULL,
                                     source_path(m, dir, file), dir, lineno > 0 ? lineno : 0};
        /* The next function out was at this inlined copy's call. */
        Dwarf_Attribute attr;
        Dwarf_Word index = 0, call_line = 0;
        Dwarf_Files *files = NULL;
        size_t nfiles = 0;
        file = NULL;
        lineno = 0;
        if (dw.dwarf_formudata(dw.dwarf_attr(&chain[i], DW_AT_call_file, &attr), &index) == 0 &&
            dw.dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 && index < nfiles)
            file = dw.dwarf_filesrc(files, index, NULL, NULL);
        if (dw.dwarf_formudata(dw.dwarf_attr(&chain[i], DW_AT_call_line, &attr), &call_line) == 0)
            lineno = (int)call_line;
    }
    if (n == 0 && file != NULL && lineno > 0)
        levels[n++] = (code_level_t){NULL, source_path(m, dir, file), dir, lineno};
    return n;
}

bool module_file_bias(const module_file_t *m, uint64_t *bias)
{
    *bias = m->bias;
    return m->has_bias;
}

void module_file_set_bias(module_file_t *m, uint64_t bias)
{
    m->has_bias = true;
    m->bias = bias;
}
