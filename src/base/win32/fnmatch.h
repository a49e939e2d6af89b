/* fnmatch.h - Windows build only (see posix.h): '*' and '?' globs, no brackets. */
#ifndef MT_WIN32_FNMATCH_H
#define MT_WIN32_FNMATCH_H

#define FNM_NOMATCH 1
#define fnmatch mt_win_fnmatch
int fnmatch(const char *pattern, const char *string, int flags);

#endif /* MT_WIN32_FNMATCH_H */
