/* program_symbols_elf.c - the program's own functions by name where there is no libdw
 * (the other Linux targets: musl, i686, aarch64, s390x under qemu-user, README "Platforms").
 *
 * dladdr knows only the dynamic symbol table, which holds none of a program's functions
 * (unless it is linked -rdynamic), and a static program has no loader to ask at all: a
 * stack's frames in the program would read as bare addresses. The program's file keeps
 * its full symbol table (.symtab, unless stripped): it is mapped read-only once, the first
 * time a name is asked for (report time), and kept for the life of the process. Nothing is
 * allocated; the caller (symbolize.c) holds the symbolizer's lock.
 */
#define _GNU_SOURCE
#include "base/program_symbols.h"

#ifndef _WIN32 /* Windows: platform_windows.c */
#ifndef MT_BARE_METAL
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/os_memory.h"

static struct {
    bool tried;
    const ElfW(Sym) * syms;
    size_t nsyms;
    const char *names;
    size_t names_size;
    uintptr_t bias; /* the program's load address (0 unless PIE) */
} program;

static int first_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    *(uintptr_t *)ctx = (uintptr_t)info->dlpi_addr;
    return 1; /* the loader lists the program first */
}

/* Maps the program's file and finds its .symtab and the strings it names. */
static void open_program_locked(void)
{
    program.tried = true;
    int saved = errno;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
        if (fd >= 0)
            close(fd);
        errno = saved;
        return;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *file = mt_os_map_file(size, fd);
    close(fd);
    errno = saved;
    if (file == MAP_FAILED)
        return;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(const void *)file;
    bool ours = eh->e_ident[EI_MAG0] == ELFMAG0 && eh->e_ident[EI_MAG1] == ELFMAG1 &&
                eh->e_ident[EI_MAG2] == ELFMAG2 && eh->e_ident[EI_MAG3] == ELFMAG3 &&
                eh->e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
                eh->e_shentsize == sizeof(ElfW(Shdr)) && eh->e_shoff < size &&
                (size - eh->e_shoff) / sizeof(ElfW(Shdr)) >= eh->e_shnum;
    const ElfW(Shdr) *sh = ours ? (const ElfW(Shdr) *)(const void *)(file + eh->e_shoff) : NULL;
    for (unsigned i = 0; sh != NULL && i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_entsize != sizeof(ElfW(Sym)) || sh[i].sh_offset > size ||
            sh[i].sh_size > size - sh[i].sh_offset)
            continue;
        const ElfW(Shdr) *str = &sh[sh[i].sh_link];
        if (str->sh_offset > size || str->sh_size > size - str->sh_offset || str->sh_size == 0)
            continue;
        program.syms = (const ElfW(Sym) *)(const void *)(file + sh[i].sh_offset);
        program.nsyms = sh[i].sh_size / sizeof(ElfW(Sym));
        program.names = (const char *)file + str->sh_offset;
        program.names_size = str->sh_size;
        dl_iterate_phdr(first_object, &program.bias);
        return;
    }
    mt_os_unmap((void *)(uintptr_t)file, size); /* stripped, or not the program we thought */
}

const char *mt_program_function(uintptr_t pc, uintptr_t *offset, size_t *size)
{
    if (!program.tried)
        open_program_locked();
    if (program.syms == NULL || pc < program.bias)
        return NULL;
    uintptr_t at = pc - program.bias - 1; /* a return address: the call is before it */
    const ElfW(Sym) *best = NULL;
    for (size_t i = 0; i < program.nsyms; i++) {
        const ElfW(Sym) *s = &program.syms[i];
        if (ELF32_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF ||
            s->st_name >= program.names_size)
            continue;
        uintptr_t start = (uintptr_t)s->st_value;
#if defined(__arm__) || defined(__thumb__)
        start &= ~(uintptr_t)1; /* Thumb code's symbols have the low bit set */
#endif
        if (at >= start && at - start < (s->st_size != 0 ? (uintptr_t)s->st_size : 1) &&
            (best == NULL || start > (uintptr_t)best->st_value))
            best = s;
    }
    if (best == NULL ||
        memchr(program.names + best->st_name, '\0', program.names_size - best->st_name) == NULL)
        return NULL;
    *offset = at + 1 - (uintptr_t)best->st_value;
    *size = (size_t)best->st_size;
    return program.names + best->st_name;
}

#else

const char *mt_program_function(uintptr_t pc, uintptr_t *offset, size_t *size)
{
    (void)pc;
    (void)offset;
    (void)size;
    return NULL; /* bare metal: no file to read */
}

#endif
#endif
