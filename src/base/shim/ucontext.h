/* ucontext.h - for the targets that lack it (Windows, bare metal: tools/platform.mk puts this
 * folder on their include path; win32/posix.h says why): no signal context to read. */
#ifndef MT_SHIM_UCONTEXT_H
#define MT_SHIM_UCONTEXT_H

typedef struct {
    int unused;
} ucontext_t;

#endif /* MT_SHIM_UCONTEXT_H */
