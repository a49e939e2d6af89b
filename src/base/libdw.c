/* libdw.c - elfutils' libdw, opened on first use (base/libdw.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "base/libdw.h"

#ifdef MT_HAVE_LIBDW
mt_libdw_t mt_dw;

bool mt_libdw_open(void)
{
    static bool tried, opened;
    if (tried)
        return opened;
    tried = true;
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return false;
#define MT_DW_RESOLVE(name)                                                                        \
    if ((*(void **)&mt_dw.name = dlsym(lib, #name)) == NULL)                                       \
        return false;
    MT_DW_FUNCTIONS(MT_DW_RESOLVE)
#undef MT_DW_RESOLVE
    opened = true;
    return true;
}
#else
typedef int mt_libdw_unused_t; /* a translation unit holds a declaration */
#endif
