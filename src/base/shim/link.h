/* link.h - for the targets that lack it (Windows, bare metal: tools/platform.mk puts this
 * folder on their include path; win32/posix.h says why): no program headers to walk (a PE
 * image, a bare-metal one with no loader): dl_iterate_phdr visits nothing, so no address is
 * taken for the program's code. */
#ifndef MT_SHIM_LINK_H
#define MT_SHIM_LINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t p_type, p_flags;
    uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
} Elf64_Phdr;
#define ElfW(type) Elf64_##type
#define PT_LOAD 1
#define PF_X 1
struct dl_phdr_info {
    uintptr_t dlpi_addr;
    const char *dlpi_name;
    const Elf64_Phdr *dlpi_phdr;
    uint16_t dlpi_phnum;
    unsigned long long dlpi_adds, dlpi_subs;
};
static inline int dl_iterate_phdr(int (*callback)(struct dl_phdr_info *, size_t, void *),
                                  void *data)
{
    (void)callback, (void)data;
    return 0;
}

#endif /* MT_SHIM_LINK_H */
