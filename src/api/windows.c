/* windows.c - the entry points only Windows has: the CRT's _aligned_free, to which the
 * drop-in macros send _aligned_free (include/memtrack.h, Windows part). _aligned_malloc
 * is memalign and _strdup is strdup there; only the release needs its own door, because a
 * block untracked code made with the CRT's _aligned_malloc cannot go to free().
 */
#ifdef _WIN32
#include <malloc.h>

#include "api/api.h"
#include "checks/foreign.h"
#include "checks/page_guard.h"

/* A tracked block (live, freed lately, owned) and a pointer no allocator made are the
 * tracker's, as for free(); any other block is the CRT's aligned allocator's. */
static MT_NOINLINE bool crt_aligned_block(void *ptr)
{
    mt_block_t b;
    mt_pointer_class_t why;
    return ptr != NULL && !mt_busy && !mt_page_guarded((uintptr_t)ptr) &&
           mt_peek_block(ptr, &b) == MT_FOUND_NONE && mt_foreign_is_libc_block(ptr, &why);
}

/* The tracker's blocks go on to free's entry point by a tail call (no local's address is
 * taken here), so that the stack it takes starts at the program's call: Windows' unwinder
 * cannot unwind libmemtrack's own frames (base/platform_windows.c). */
MT_EXPORT void memtrack_aligned_free_at(void *ptr, const char *file, int line, const char *func)
{
    if (crt_aligned_block(ptr)) {
        _aligned_free(ptr);
        return;
    }
    memtrack_free_at(ptr, file, line, func);
}
#endif /* _WIN32 */
