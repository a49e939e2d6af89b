/* ucontext.h - Windows build only (see posix.h): no signal context to read. */
#ifndef MT_WIN32_UCONTEXT_H
#define MT_WIN32_UCONTEXT_H

typedef struct {
    int unused;
} ucontext_t;

#endif /* MT_WIN32_UCONTEXT_H */
