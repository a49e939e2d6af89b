/* build_id.c - a loaded module's build id, read from its notes in memory (dl_iterate_phdr:
 * no file is opened): what the symbol cache (base/symbol_cache.c) names its files by.
 */
#define _GNU_SOURCE
#include "base/build_id.h"

#ifdef MT_HAVE_LIBDW /* where the symbol cache is */
#include <link.h>
#include <string.h>

typedef struct id_search {
    uintptr_t pc;
    char *hex;
    size_t cap; /* of hex: 2 digits a byte and the '\0' */
    bool found;
} id_search_t;

static int module_id(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    id_search_t *s = ctx;
    bool holds = false;
    for (unsigned i = 0; i < info->dlpi_phnum && !holds; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        holds = ph->p_type == PT_LOAD && s->pc >= start && s->pc - start < ph->p_memsz;
    }
    if (!holds)
        return 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
            size_t name = (n->n_namesz + 3u) & ~3u, desc = (n->n_descsz + 3u) & ~3u;
            if (name > (size_t)(end - p) - sizeof *n || desc > (size_t)(end - p) - sizeof *n - name)
                break;
            const unsigned char *d = (const unsigned char *)(p + sizeof *n + name);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                memcmp(p + sizeof *n, "GNU", 4) == 0 && n->n_descsz >= 8 &&
                2 * n->n_descsz < s->cap) {
                static const char digits[] = "0123456789abcdef";
                for (unsigned k = 0; k < n->n_descsz; k++) {
                    s->hex[2 * k] = digits[d[k] >> 4];
                    s->hex[2 * k + 1] = digits[d[k] & 15];
                }
                s->hex[2 * n->n_descsz] = '\0';
                s->found = true;
                return 1;
            }
            p += sizeof *n + name + desc;
        }
    }
    return 1;
}

bool mt_build_id(uintptr_t pc, char *hex, size_t cap)
{
    id_search_t s = {pc, hex, cap, false};
    dl_iterate_phdr(module_id, &s);
    return s.found;
}
#else
typedef int mt_build_id_unused_t; /* a translation unit holds a declaration */
#endif
