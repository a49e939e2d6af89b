/* heap_sort.c - sorting without allocating (heap_sort.h). */
#include <stdint.h>
#include <string.h>

#include "base/heap_sort.h"

/* Swaps two elements a word at a time where their size allows (the tracker's are structs of
 * words), else byte by byte. */
static void swap(unsigned char *a, unsigned char *b, size_t size)
{
    size_t i = 0;
    for (; i + sizeof(uint64_t) <= size; i += sizeof(uint64_t)) {
        uint64_t t;
        memcpy(&t, a + i, sizeof t);
        memcpy(a + i, b + i, sizeof t);
        memcpy(b + i, &t, sizeof t);
    }
    for (; i < size; i++) {
        unsigned char t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

static void sift_down(unsigned char *a, size_t root, size_t n, size_t size,
                      int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && cmp(a + child * size, a + (child + 1) * size) < 0)
            child++;
        if (cmp(a + root * size, a + child * size) >= 0)
            return;
        swap(a + root * size, a + child * size, size);
        root = child;
    }
}

void mt_heap_sort(void *base, size_t n, size_t size, int (*cmp)(const void *a, const void *b))
{
    unsigned char *a = base;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n, size, cmp);
    for (size_t end = n; end-- > 1;) {
        swap(a, a + end * size, size);
        sift_down(a, 0, end, size, cmp);
    }
}
