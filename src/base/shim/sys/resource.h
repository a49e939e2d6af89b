/* sys/resource.h - for the targets that lack it (Windows, bare metal: tools/platform.mk puts
 * this folder on their include path; win32/posix.h says why): no resource limits to ask;
 * the stack's bounds come from pthread_getattr_np there (win32/pthread.h, bare/pthread.h). */
#ifndef MT_SHIM_SYS_RESOURCE_H
#define MT_SHIM_SYS_RESOURCE_H

typedef unsigned long rlim_t;
struct rlimit {
    rlim_t rlim_cur, rlim_max;
};
#define RLIMIT_STACK 3
#define RLIM_INFINITY ((rlim_t)-1)
static inline int getrlimit(int resource, struct rlimit *limit)
{
    (void)resource, (void)limit;
    return -1;
}

#endif /* MT_SHIM_SYS_RESOURCE_H */
