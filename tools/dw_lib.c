/* dw_lib.c - libdw and libelf opened on first use (dw_lib.h). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "dw_lib.h"

dw_lib_t dw;

bool dw_lib_open(void)
{
    static bool tried, opened;
    if (tried)
        return opened;
    tried = true;
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return false;
        /* libelf's functions come through libdw's handle: it depends on libelf.so.1. */
#define DW_LIB_RESOLVE(name)                                                                       \
    if ((*(void **)&dw.name = dlsym(lib, #name)) == NULL)                                          \
        return false;
    DW_LIB_FUNCTIONS(DW_LIB_RESOLVE)
#undef DW_LIB_RESOLVE
    opened = dw.elf_version(EV_CURRENT) != EV_NONE;
    return opened;
}
