/* execinfo.h - for the targets that lack it (Windows, bare metal: tools/platform.mk puts this
 * folder on their include path; win32/posix.h says why): no backtrace; callers fall back
 * to the faulting function itself. */
#ifndef MT_SHIM_EXECINFO_H
#define MT_SHIM_EXECINFO_H

#define backtrace(frames, n) ((void)(frames), (void)(n), 0)

#endif /* MT_SHIM_EXECINFO_H */
