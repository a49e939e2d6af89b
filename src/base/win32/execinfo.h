/* execinfo.h - Windows build only (see posix.h): no backtrace; callers fall back to the
 * faulting function itself. */
#ifndef MT_WIN32_EXECINFO_H
#define MT_WIN32_EXECINFO_H

#define backtrace(frames, n) ((void)(frames), (void)(n), 0)

#endif /* MT_WIN32_EXECINFO_H */
