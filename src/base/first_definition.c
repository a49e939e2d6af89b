/* first_definition.c - the definition of a function the process's calls reach, read from
 * each loaded object's dynamic symbol table in the loader's order.
 *
 * dlsym(RTLD_DEFAULT, "malloc") answers what a program compares function pointers with, not
 * what its calls reach: a program not built as PIE that takes malloc's address (Python's
 * allocator table does) keeps an undefined "malloc" whose value is a stub in its own code
 * (a canonical PLT entry), and dlsym returns that stub, which jumps to the real definition.
 * The loader binds calls to the first object that defines the function, passing over such
 * entries; this does the same, by the objects' own hash tables (GNU's, or the older SysV
 * one), with no allocation and bounded walks of the tables.
 */
#define _GNU_SOURCE
#include "base/first_definition.h"

#ifdef MT_GLIBC_MALLOC
#include <link.h>
#include <string.h>

#define CHAIN_MAX 65536u /* entries of one hash chain looked at: a damaged table ends there */

typedef struct lookup {
    const char *name;
    void *found;
} lookup_t;

/* The dynamic section's addresses are relocated in place by the loader, except where the
 * section is read-only (the vDSO's): those are still the file's, below the object's base. */
static uintptr_t dynamic_address(ElfW(Addr) value, ElfW(Addr) base)
{
    return value < base ? (uintptr_t)(value + base) : (uintptr_t)value;
}

static bool defines(const ElfW(Sym) * s, const char *strtab, const char *name)
{
    unsigned type = ELF64_ST_TYPE(s->st_info); /* (the same bits in ELF32_ST_TYPE) */
    return s->st_shndx != SHN_UNDEF && s->st_value != 0 &&
           (type == STT_FUNC || type == STT_GNU_IFUNC) && strcmp(strtab + s->st_name, name) == 0;
}

static const ElfW(Sym) * gnu_lookup(const uint32_t *table, const ElfW(Sym) * symtab,
                                    const char *strtab, const char *name)
{
    uint32_t hash = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++)
        hash = hash * 33 + *c;
    uint32_t nbuckets = table[0], symoffset = table[1], bloom_words = table[2];
    if (nbuckets == 0)
        return NULL;
    const uint32_t *buckets =
        (const uint32_t *)(const void *)((const ElfW(Addr) *)(const void *)(table + 4) +
                                         bloom_words);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t i = buckets[hash % nbuckets];
    if (i < symoffset)
        return NULL;
    for (unsigned n = 0; n < CHAIN_MAX; n++, i++) {
        uint32_t h = chain[i - symoffset];
        if ((h | 1) == (hash | 1) && defines(&symtab[i], strtab, name))
            return &symtab[i];
        if (h & 1)
            break; /* the chain's last entry */
    }
    return NULL;
}

static const ElfW(Sym) * sysv_lookup(const ElfW(Word) * table, const ElfW(Sym) * symtab,
                                     const char *strtab, const char *name)
{
    uint32_t hash = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++) {
        hash = (hash << 4) + *c;
        uint32_t high = hash & 0xf0000000u;
        hash ^= high >> 24;
        hash &= ~high;
    }
    ElfW(Word) nbuckets = table[0], nchain = table[1];
    if (nbuckets == 0)
        return NULL;
    const ElfW(Word) *chain = table + 2 + nbuckets;
    ElfW(Word) i = table[2 + hash % nbuckets];
    for (unsigned n = 0; n < CHAIN_MAX && i != STN_UNDEF && i < nchain; n++, i = chain[i])
        if (defines(&symtab[i], strtab, name))
            return &symtab[i];
    return NULL;
}

static int look_in_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    lookup_t *l = ctx;
    const ElfW(Dyn) *dyn = NULL;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return 0;
    uintptr_t symtab = 0, strtab = 0, gnu_hash = 0, sysv_hash = 0;
    for (unsigned n = 0; dyn->d_tag != DT_NULL && n < 4096; dyn++, n++) {
        uintptr_t at = dynamic_address(dyn->d_un.d_ptr, info->dlpi_addr);
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = at; break;
        case DT_STRTAB: strtab = at; break;
        case DT_GNU_HASH: gnu_hash = at; break;
        case DT_HASH: sysv_hash = at; break;
        default: break;
        }
    }
    if (symtab == 0 || strtab == 0)
        return 0;
    const ElfW(Sym) *syms = (const ElfW(Sym) *)symtab;
    const ElfW(Sym) *s =
        gnu_hash != 0 ? gnu_lookup((const uint32_t *)gnu_hash, syms, (const char *)strtab, l->name)
        : sysv_hash != 0
            ? sysv_lookup((const ElfW(Word) *)sysv_hash, syms, (const char *)strtab, l->name)
            : NULL;
    if (s == NULL)
        return 0;
    l->found = (void *)(info->dlpi_addr + s->st_value);
    return 1; /* the first in the loader's order */
}

void *mt_first_definition(const char *name)
{
    lookup_t l = {name, NULL};
    dl_iterate_phdr(look_in_object, &l);
    return l.found;
}
#endif /* MT_GLIBC_MALLOC */
