/* mapped.c - the memory the program mapped for itself, writable and anonymous, as roots of
 * the leak scan.
 *
 * An allocator of the program's own that takes its memory from mmap keeps, in that memory,
 * the pointers to blocks it got from malloc: Python's object allocator keeps its objects in
 * arenas it maps, and a list's items, a dictionary's table, are malloc'd blocks held only
 * by those objects. Not read, they were lost blocks to the scan (and memtrack run --preload
 * exited 23 on `python3 -c 'print(1)'`); Valgrind reads them. Only the program's calls of
 * mmap come here (api/stacks.c): the C library's own mappings (its heap, which holds the
 * blocks themselves; thread stacks, which are roots already) and the tracker's never do.
 *
 * The list is a fixed array in libmemtrack's own data, which no scan reads, under a spin
 * lock. A call nested in a signal handler that interrupted this thread inside the tracker
 * notes nothing (it would wait for itself) and forgets only when the lock is free; a range
 * that does not fit is not noted, nor the smaller side of a hole cut in a noted range when
 * the list is full. Each only leaves out a root, as before this list, never keeps one that
 * memory no longer is.
 */
#include "base/mapped.h"

#include "base/lock.h"

static mt_lock_t lock = MT_LOCK_INIT;
static mt_span_t spans[MT_MAPPED_MAX];
static size_t count;

static void remove_locked(uintptr_t start, uintptr_t end)
{
    for (size_t i = 0; i < count;) {
        mt_span_t *s = &spans[i];
        if (s->end <= start || s->start >= end) {
            i++;
        } else if (s->start >= start && s->end <= end) {
            *s = spans[--count]; /* wholly gone */
        } else if (s->start < start && s->end > end) {
            /* A hole in it. With no room for both sides, the smaller is lost as a root: the
             * hole, kept, would be read as one. */
            if (count < MT_MAPPED_MAX) {
                spans[count++] = (mt_span_t){end, s->end};
                s->end = start;
            } else if (s->end - end > start - s->start) {
                s->start = end;
            } else {
                s->end = start;
            }
            i++;
        } else {
            if (s->start < start)
                s->end = start;
            else
                s->start = end;
            i++;
        }
    }
}

void mt_mapped_add(uintptr_t addr, size_t len)
{
    if (len == 0 || len > MT_MAPPED_LEN_MAX || addr + len < addr || mt_reentered())
        return;
    mt_lock(&lock);
    remove_locked(addr, addr + len); /* (a fixed mapping over one noted) */
    if (count < MT_MAPPED_MAX)
        spans[count++] = (mt_span_t){addr, addr + len};
    mt_unlock(&lock);
}

/* The list's lock to forget a range. A call nested in a signal handler that interrupted
 * this thread inside the tracker takes it only when it is free (this thread may hold it,
 * and would wait for itself): a range unmapped and still noted would be read as a root when
 * memory comes there again, the C library's blocks perhaps, hiding leaks they point to.
 * (Nothing is noted from there: the tracker's own calls are nested too.) */
static bool lock_to_forget(void)
{
    if (mt_reentered())
        return mt_trylock(&lock);
    mt_lock(&lock);
    return true;
}

void mt_mapped_remove(uintptr_t addr, size_t len)
{
    if (len == 0 || addr + len < addr || !lock_to_forget())
        return;
    remove_locked(addr, addr + len);
    mt_unlock(&lock);
}

void mt_mapped_moved(uintptr_t old, size_t old_len, uintptr_t new_at, size_t new_len)
{
    bool nested = mt_reentered();
    if (!lock_to_forget())
        return;
    bool noted = false; /* (nested: the old range forgotten, the new one not noted) */
    for (size_t i = 0; i < count && !noted; i++)
        noted = spans[i].start <= old && old < spans[i].end;
    remove_locked(old, old + old_len);
    if (noted && !nested) {
        remove_locked(new_at, new_at + new_len);
        if (count < MT_MAPPED_MAX && new_len <= MT_MAPPED_LEN_MAX)
            spans[count++] = (mt_span_t){new_at, new_at + new_len};
    }
    mt_unlock(&lock);
}

size_t mt_mapped_spans(mt_span_t *out, size_t max)
{
    mt_lock(&lock);
    size_t n = count < max ? count : max;
    for (size_t i = 0; i < n; i++)
        out[i] = spans[i];
    mt_unlock(&lock);
    return n;
}

void mt_mapped_lock(void)
{
    mt_lock(&lock);
}

void mt_mapped_unlock(void)
{
    mt_unlock(&lock);
}
