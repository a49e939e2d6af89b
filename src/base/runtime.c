/* runtime.c - the libraries every process is built on, by the file names of their modules
 * (runtime.h). Used by the library (records/place.c) and the report tool (the fail sweep),
 * so both tell them alike.
 */
#include <string.h>

#include "base/runtime.h"

static bool named(const char *path, const char *const *names, size_t n)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    for (size_t i = 0; i < n; i++)
        if (strncmp(base, names[i], strlen(names[i])) == 0)
            return true;
    return false;
}

bool mt_module_is_cxx_runtime(const char *path)
{
    static const char *const names[] = {"libstdc++.so", "libc++.so", "libc++abi.so"};
    return named(path, names, sizeof names / sizeof names[0]);
}

bool mt_module_is_runtime(const char *path)
{
    static const char *const names[] = {"libc.so",       "libc-",   "libc.musl",  "ld-linux",
                                        "ld-musl",       "ld64.so", "libdl.so",   "librt.so",
                                        "libpthread.so", "libm.so", "libgcc_s.so"};
    const char *slash = strrchr(path, '/');
    return named(path, names, sizeof names / sizeof names[0]) || mt_module_is_cxx_runtime(path) ||
           strstr(slash != NULL ? slash : path, "vdso") != NULL;
}
