/* runtime.h - the libraries every process is built on, told by their file names
 * (runtime.c): what records/place.c counts as the C runtime's, and the fail sweep too.
 */
#ifndef MT_RUNTIME_H
#define MT_RUNTIME_H

#include <stdbool.h>

/* GNU libstdc++ and LLVM libc++ with its ABI library, by file name. Statically linked
 * (-static-libstdc++), the runtime is part of the program and its blocks look like the
 * program's. */
bool mt_module_is_cxx_runtime(const char *path);
/* The C library (with the parts glibc keeps apart), the loader, the compiler's support
 * library, the C++ runtime and the vDSO: the allocations they make are for themselves. */
bool mt_module_is_runtime(const char *path);

#endif /* MT_RUNTIME_H */
