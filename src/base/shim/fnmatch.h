/* fnmatch.h - for the targets that lack it (Windows, bare metal: tools/platform.mk puts this
 * folder on their include path; win32/posix.h says why): '*' and '?' globs, no brackets
 * (base/platform_shim.c). */
#ifndef MT_SHIM_FNMATCH_H
#define MT_SHIM_FNMATCH_H

#define FNM_NOMATCH 1
#define fnmatch mt_shim_fnmatch
int fnmatch(const char *pattern, const char *string, int flags);

#endif /* MT_SHIM_FNMATCH_H */
