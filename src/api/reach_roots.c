/* reach_roots.c - roots the program registers: memory the leak scan cannot find by itself
 * (an engine's own mapped heap, a buffer a device or a script interpreter holds pointers
 * in), read as roots as the modules' data is (memtrack_register_root).
 *
 * A short list, kept in the tracker's memory under its own lock (taken alone): the entry
 * of a root unregistered is reused, so indexes, which the scan's holders name, stay put.
 */
#include <errno.h>
#include <string.h>

#include "api/api.h"
#include "api/reach.h"
#include "base/lock.h"
#include "base/memory.h"

typedef struct registered_root {
    uintptr_t start, end; /* end 0: a free entry */
    uint32_t site;
} registered_root_t;

static struct {
    pthread_mutex_t lock;
    registered_root_t *list;
    size_t n, cap;
} roots = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void register_root(const void *ptr, size_t size, uint32_t site)
{
    uintptr_t start = (uintptr_t)ptr;
    if (ptr == NULL || size == 0 || start + size < start)
        return;
    mt_mutex_lock(&roots.lock);
    size_t at = 0;
    while (at < roots.n && roots.list[at].end != 0)
        at++;
    if (at == roots.cap) {
        size_t more = roots.cap != 0 ? roots.cap * 2 : 16;
        registered_root_t *fresh = mt_mem_alloc(more * sizeof *fresh);
        if (fresh != NULL) {
            if (roots.list != NULL)
                memcpy(fresh, roots.list, roots.n * sizeof *fresh);
            mt_mem_free(roots.list);
            roots.list = fresh;
            roots.cap = more;
        }
    }
    if (at < roots.cap) {
        roots.list[at] = (registered_root_t){start, start + size, site};
        if (at == roots.n)
            roots.n++;
    }
    mt_mutex_unlock(&roots.lock);
}

MT_EXPORT void memtrack_register_root_at(const void *ptr, size_t size, const char *file, int line,
                                         const char *func)
{
    MT_ENTRY();
    int saved = errno;
    mt_init();
    mt_busy++;
    uint32_t site = file != NULL ? mt_site_id(file, line, func, MT_KIND_REGISTER, NULL)
                                 : mt_site_pc(__builtin_return_address(0), MT_KIND_REGISTER);
    register_root(ptr, size, site);
    mt_busy--;
    errno = saved;
}

#undef memtrack_register_root
MT_EXPORT void memtrack_register_root(const void *ptr, size_t size)
{
    MT_ENTRY();
    int saved = errno;
    mt_init();
    mt_busy++;
    register_root(ptr, size, mt_site_pc(__builtin_return_address(0), MT_KIND_REGISTER));
    mt_busy--;
    errno = saved;
}

MT_EXPORT void memtrack_unregister_root(const void *ptr)
{
    MT_ENTRY();
    mt_mutex_lock(&roots.lock);
    for (size_t i = 0; i < roots.n; i++)
        if (roots.list[i].end != 0 && roots.list[i].start == (uintptr_t)ptr) {
            roots.list[i].end = 0;
            break;
        }
    mt_mutex_unlock(&roots.lock);
}

void mt_reach_roots_lock_all(void)
{
    mt_mutex_lock(&roots.lock);
}

void mt_reach_roots_unlock_all(void)
{
    mt_mutex_unlock(&roots.lock);
}

bool mt_reach_add_registered(mt_roots_t *r)
{
    bool ok = true;
    mt_mutex_lock(&roots.lock);
    for (size_t i = 0; ok && i < roots.n; i++)
        if (roots.list[i].end != 0)
            ok = mt_roots_add_program(r, roots.list[i].start, roots.list[i].end, (uint32_t)i);
    mt_mutex_unlock(&roots.lock);
    return ok;
}

uint32_t mt_reach_registered_site(uint32_t index)
{
    mt_mutex_lock(&roots.lock);
    uint32_t site = index < roots.n ? roots.list[index].site : MT_SITE_NONE;
    mt_mutex_unlock(&roots.lock);
    return site;
}
