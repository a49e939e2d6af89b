/* code_map.h - whether addresses lie in a loaded module's code: the stack walk's check
 * that what it read as return addresses are ones.
 */
#ifndef MT_CODE_MAP_H
#define MT_CODE_MAP_H

#include "base/platform.h"

/* How many of pcs[0..n) come before the first that lies outside every loaded module's
 * executable segments: n when all lie inside, and n when the loader lists no module
 * (Windows, bare metal: then nothing can be checked and the walk is trusted). A module
 * loaded since the last look is found by looking again, once per call, when an address
 * is outside. Callers serialize (the stacks' lock, records/stack.c); it takes the loader's
 * lock and never allocates through the tracker. */
unsigned mt_code_prefix(void *const *pcs, unsigned n);
/* Whose code a return address lies in. The C++ runtime is a system library (what it keeps
 * until exit is not the program's leak, and its frames are named as a system library's), but
 * the blocks it makes serve the program's own objects (a std::string's buffer is made inside
 * libstdc++.so or inline in the program, as the standard decides): they are counted and
 * numbered as the program's. */
typedef enum {
    MT_CODE_PROGRAM,     /* the program and the user's own libraries */
    MT_CODE_SYSTEM,      /* the C library, the loader, libmemtrack...: counted apart */
    MT_CODE_CXX_RUNTIME, /* libstdc++, libc++: counted as the program's, listed apart */
} mt_code_owner_t;
/* Whose code return address pc lies in (mt_module_owner), or, where the loader knows no
 * module holding it, the system's when outside the program's image or in the code a static
 * link placed after libmemtrack's. Looks again when the loader's modules changed; takes the
 * loader's lock and this file's, never allocates through the tracker. */
mt_code_owner_t mt_code_owner(const void *pc);
/* Whose a module is: the C library, the loader, the vDSO, libmemtrack itself, anything under
 * /lib, /usr/lib... are the system's; libstdc++ and libc++ the C++ runtime's, wherever
 * installed. path: its file as the loader names it ("" for the program); is_program: the
 * first module the loader lists; is_self: libmemtrack's own. The one rule: sites are
 * counted by it when made (records/site.c), report frames named by it (records/place.c). */
mt_code_owner_t mt_module_owner(const char *path, bool is_program, bool is_self);
/* Around fork, so a child never inherits the snapshot's lock taken. */
void mt_code_map_lock(void);
void mt_code_map_unlock(void);

#endif /* MT_CODE_MAP_H */
