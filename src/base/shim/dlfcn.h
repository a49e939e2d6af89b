/* dlfcn.h - for the targets that lack it (Windows, bare metal: tools/platform.mk puts this
 * folder on their include path; win32/posix.h says why): dladdr knows no
 * module, so an address is named by the program's image alone (mt_in_program_image) and
 * sites print file:line from the macros; dlopen and dlsym find nothing. */
#ifndef MT_SHIM_DLFCN_H
#define MT_SHIM_DLFCN_H

typedef struct {
    const char *dli_fname;
    void *dli_fbase;
    const char *dli_sname;
    void *dli_saddr;
} Dl_info;
#define RTLD_NEXT ((void *)-1)
#define RTLD_LAZY 1
#define RTLD_LOCAL 0
#define dlopen(path, mode) ((void)(path), (void)(mode), (void *)0)
#define dladdr(addr, info) ((void)(addr), (void)(info), 0)
#define dlsym(handle, name) ((void)(handle), (void)(name), (void *)0)

#endif /* MT_SHIM_DLFCN_H */
