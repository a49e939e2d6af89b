/* platform_shim.c - what the targets without POSIX share of its names (base/shim: Windows,
 * bare metal). The rest of each is in its platform file. */
#if defined(_WIN32) || defined(MT_BARE_METAL)
#include <fnmatch.h>

#include "base/platform.h"

/* Option track_programs matches the executable's name with '*' and '?' (no brackets). */
int fnmatch(const char *pattern, const char *string, int flags)
{
    (void)flags;
    const char *star = NULL, *resume = NULL;
    while (*string != '\0') {
        if (*pattern == '*') {
            star = pattern++;
            resume = string;
        } else if (*pattern == '?' || *pattern == *string) {
            pattern++;
            string++;
        } else if (star != NULL) {
            pattern = star + 1;
            string = ++resume;
        } else {
            return FNM_NOMATCH;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0' ? 0 : FNM_NOMATCH;
}

#endif
