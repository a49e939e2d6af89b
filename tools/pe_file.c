/* pe_file.c - a PE file's functions and DWARF (pe_file.h), after Microsoft's PE format
 * specification: the COFF header after "PE\0\0" at e_lfanew, the optional header (PE32 or
 * PE32+: its image base), the section table, and the COFF symbol table of 18-byte records
 * with the string table right after it. Addresses are the image's (image base + RVA), as
 * GNU ld writes them in the DWARF. */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pe_file.h"

enum {
    COFF_HEADER = 20,
    SECTION_HEADER = 40,
    SYMBOL_RECORD = 18,
    SYMBOL_TYPE_FUNCTION = 0x20, /* DTYPE_FUNCTION in the type's high byte */
    MAX_SECTIONS = 256,
};

typedef struct reader {
    const unsigned char *p;
    size_t size;
} reader_t;

/* Little-endian words at off, 0 past the end (callers check the range first). */
static uint64_t le(const reader_t *r, size_t off, unsigned width)
{
    uint64_t v = 0;
    if (off > r->size || width > r->size - off)
        return 0;
    for (unsigned i = width; i-- > 0;)
        v = v << 8 | r->p[off + i];
    return v;
}

static bool in_file(const reader_t *r, uint64_t off, uint64_t len)
{
    return off <= r->size && len <= r->size - off;
}

typedef struct section {
    char name[64];
    uint64_t rva, size, file_off;
} section_t;

/* A COFF name: 8 bytes, or "/N" (sections) or a zero first word then an offset (symbols)
 * into the string table. */
static void coff_name(const reader_t *r, size_t at, uint64_t strtab, bool symbol, char *out,
                      size_t room)
{
    uint64_t str = UINT64_MAX;
    if (symbol && le(r, at, 4) == 0)
        str = strtab + le(r, at + 4, 4);
    else if (!symbol && r->p[at] == '/') {
        uint64_t n = 0;
        for (size_t i = 1; i < 8 && r->p[at + i] >= '0' && r->p[at + i] <= '9'; i++)
            n = n * 10 + (uint64_t)(r->p[at + i] - '0');
        str = strtab + n;
    }
    size_t n = 0;
    if (str == UINT64_MAX) {
        while (n < 8 && n + 1 < room && r->p[at + n] != '\0') {
            out[n] = (char)r->p[at + n];
            n++;
        }
    } else {
        while (str + n < r->size && n + 1 < room && r->p[str + n] != '\0') {
            out[n] = (char)r->p[str + n];
            n++;
        }
    }
    out[n] = '\0';
}

/* The functions: symbols of function type defined in a section. */
static void read_functions(const reader_t *r, uint64_t symtab, uint64_t nsyms, uint64_t strtab,
                           const section_t *sec, unsigned nsec, uint64_t base, pe_file_t *out)
{
    size_t room = 0, bytes = 0;
    char name[256];
    for (uint64_t i = 0; i < nsyms; i++) {
        size_t at = (size_t)(symtab + i * SYMBOL_RECORD);
        uint64_t secno = le(r, at + 12, 2), type = le(r, at + 14, 2);
        if (secno >= 1 && secno <= nsec && (type & 0xf0) == SYMBOL_TYPE_FUNCTION) {
            room++;
            coff_name(r, at, strtab, true, name, sizeof name);
            bytes += strlen(name) + 1;
        }
        i += le(r, at + 17, 1); /* its auxiliary records */
    }
    out->syms = calloc(room + 1, sizeof *out->syms);
    out->names = malloc(bytes + 1);
    if (out->syms == NULL || out->names == NULL)
        return;
    size_t used = 0;
    for (uint64_t i = 0; i < nsyms && out->nsyms < room; i++) {
        size_t at = (size_t)(symtab + i * SYMBOL_RECORD);
        uint64_t secno = le(r, at + 12, 2), type = le(r, at + 14, 2);
        if (secno >= 1 && secno <= nsec && (type & 0xf0) == SYMBOL_TYPE_FUNCTION) {
            coff_name(r, at, strtab, true, name, sizeof name);
            size_t n = strlen(name) + 1;
            if (used + n > bytes)
                break;
            memcpy(out->names + used, name, n);
            out->syms[out->nsyms++] = (module_symbol_t){
                out->names + used, base + sec[secno - 1].rva + le(r, at + 8, 4), 0};
            used += n;
        }
        i += le(r, at + 17, 1);
    }
}

/* An ELF image holding the .debug_* sections alone (libdw finds them by name). */
static void debug_as_elf(const reader_t *r, const section_t *sec, unsigned nsec, uint16_t machine,
                         pe_file_t *out)
{
    unsigned ndebug = 0;
    size_t data = 0, names = 1 + sizeof ".shstrtab";
    for (unsigned i = 0; i < nsec; i++)
        if (strncmp(sec[i].name, ".debug_", 7) == 0) {
            ndebug++;
            data += (size_t)sec[i].size;
            names += strlen(sec[i].name) + 1;
        }
    if (ndebug == 0)
        return;
    size_t shnum = ndebug + 2; /* the null section and .shstrtab */
    size_t shoff = (sizeof(Elf64_Ehdr) + data + names + 7) & ~(size_t)7;
    size_t total = shoff + shnum * sizeof(Elf64_Shdr);
    unsigned char *img = calloc(1, total);
    if (img == NULL)
        return;
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_type = ET_EXEC;
    eh->e_machine = machine;
    eh->e_version = EV_CURRENT;
    eh->e_ehsize = sizeof(Elf64_Ehdr);
    eh->e_shentsize = sizeof(Elf64_Shdr);
    eh->e_shoff = shoff;
    eh->e_shnum = (Elf64_Half)shnum;
    eh->e_shstrndx = (Elf64_Half)(shnum - 1);
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + shoff);
    size_t at = sizeof(Elf64_Ehdr), name_base = sizeof(Elf64_Ehdr) + data, name_at = 1;
    unsigned k = 1;
    for (unsigned i = 0; i < nsec; i++) {
        if (strncmp(sec[i].name, ".debug_", 7) != 0)
            continue;
        memcpy(img + at, r->p + sec[i].file_off, (size_t)sec[i].size);
        sh[k] = (Elf64_Shdr){.sh_name = (Elf64_Word)name_at,
                             .sh_type = SHT_PROGBITS,
                             .sh_offset = at,
                             .sh_size = sec[i].size,
                             .sh_addralign = 1};
        strcpy((char *)img + name_base + name_at, sec[i].name);
        name_at += strlen(sec[i].name) + 1;
        at += (size_t)sec[i].size;
        k++;
    }
    sh[k] = (Elf64_Shdr){.sh_name = (Elf64_Word)name_at,
                         .sh_type = SHT_STRTAB,
                         .sh_offset = name_base,
                         .sh_size = names,
                         .sh_addralign = 1};
    strcpy((char *)img + name_base + name_at, ".shstrtab");
    out->debug_elf = img;
    out->debug_elf_size = total;
}

bool pe_file_read(const unsigned char *image, size_t size, pe_file_t *out)
{
    reader_t r = {image, size};
    memset(out, 0, sizeof *out);
    if (!in_file(&r, 0, 64) || image[0] != 'M' || image[1] != 'Z')
        return false;
    uint64_t pe = le(&r, 0x3c, 4);
    if (!in_file(&r, pe, 4 + COFF_HEADER) || memcmp(image + pe, "PE\0\0", 4) != 0)
        return false;
    uint64_t coff = pe + 4;
    uint16_t machine = (uint16_t)le(&r, coff, 2);
    unsigned nsec = (unsigned)le(&r, coff + 2, 2);
    uint64_t symtab = le(&r, coff + 8, 4), nsyms = le(&r, coff + 12, 4);
    uint64_t opt = coff + COFF_HEADER, opt_size = le(&r, coff + 16, 2);
    uint64_t magic = le(&r, opt, 2);
    uint64_t base = magic == 0x20b ? le(&r, opt + 24, 8) : le(&r, opt + 28, 4);
    uint64_t sections = opt + opt_size;
    if (nsec > MAX_SECTIONS || !in_file(&r, sections, (uint64_t)nsec * SECTION_HEADER) ||
        (magic != 0x20b && magic != 0x10b))
        return false;
    uint64_t strtab = symtab + nsyms * SYMBOL_RECORD;
    bool have_symbols = symtab != 0 && nsyms < (1u << 24) && in_file(&r, strtab, 4);
    static section_t sec[MAX_SECTIONS];
    for (unsigned i = 0; i < nsec; i++) {
        size_t at = (size_t)(sections + i * SECTION_HEADER);
        coff_name(&r, at, have_symbols ? strtab : UINT64_MAX / 2, false, sec[i].name,
                  sizeof sec[i].name);
        uint64_t vsize = le(&r, at + 8, 4), raw = le(&r, at + 16, 4);
        sec[i].rva = le(&r, at + 12, 4);
        sec[i].file_off = le(&r, at + 20, 4);
        sec[i].size = vsize != 0 && vsize < raw ? vsize : raw; /* raw is padded */
        if (!in_file(&r, sec[i].file_off, sec[i].size))
            sec[i].size = 0, sec[i].name[0] = '\0';
    }
    if (have_symbols)
        read_functions(&r, symtab, nsyms, strtab, sec, nsec, base, out);
    uint16_t elf_machine = machine == 0x8664   ? EM_X86_64
                           : machine == 0x14c  ? EM_386
                           : machine == 0xaa64 ? EM_AARCH64
                                               : EM_NONE;
    debug_as_elf(&r, sec, nsec, elf_machine, out);
    return true;
}

void pe_file_free(pe_file_t *pe)
{
    free(pe->syms);
    free(pe->names);
    free(pe->debug_elf);
    memset(pe, 0, sizeof *pe);
}
