/* list.c - the paper's "traditional" debug tracker, written here as the benchmark's
 * baseline: every live block has a record in one doubly linked list; a new record goes at
 * the head and a free searches the list from the head for the address, l/2 records on
 * average. Apart from the search it does what memtrack does on each call (16 guard bytes
 * on each side, the new block filled, guards checked on free), so the difference measures
 * the lookup. Single-threaded; not built with MEMORY_CONTROL_ON.
 */
#include "list.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 16u
#define GUARD_BYTE 0xFD
#define FILL_BYTE 0xCD

typedef struct record {
    struct record *prev, *next;
    unsigned char *user;
    size_t size;
} record_t;

static record_t *head;
static record_t *spare; /* recycled records, linked through next */
static unsigned long long visits;

static record_t *record_new(void)
{
    if (spare == NULL) {
        enum { SLAB = 1024 };
        record_t *slab = malloc(SLAB * sizeof *slab);
        if (slab == NULL)
            return NULL;
        for (size_t i = 0; i < SLAB; i++) {
            slab[i].next = spare;
            spare = &slab[i];
        }
    }
    record_t *r = spare;
    spare = r->next;
    return r;
}

void *list_malloc(size_t size)
{
    unsigned char *raw = malloc(size + 2 * GUARD);
    record_t *r = record_new();
    if (raw == NULL || r == NULL) {
        free(raw);
        return NULL;
    }
    memset(raw, GUARD_BYTE, GUARD);
    memset(raw + GUARD, FILL_BYTE, size);
    memset(raw + GUARD + size, GUARD_BYTE, GUARD);
    r->user = raw + GUARD;
    r->size = size;
    r->prev = NULL;
    r->next = head;
    if (head != NULL)
        head->prev = r;
    head = r;
    return r->user;
}

static int guard_intact(const unsigned char *p)
{
    for (unsigned i = 0; i < GUARD; i++)
        if (p[i] != GUARD_BYTE)
            return 0;
    return 1;
}

void list_free(void *ptr)
{
    if (ptr == NULL)
        return;
    record_t *r = head;
    while (r != NULL) {
        visits++;
        if (r->user == ptr)
            break;
        r = r->next;
    }
    if (r == NULL) {
        fprintf(stderr, "list: free of an unknown pointer %p\n", ptr);
        return;
    }
    if (!guard_intact(r->user - GUARD) || !guard_intact(r->user + r->size))
        fprintf(stderr, "list: guard damaged around %p\n", ptr);
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        head = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    free(r->user - GUARD);
    r->next = spare;
    spare = r;
}

void list_free_all(void)
{
    while (head != NULL) {
        record_t *r = head;
        head = r->next;
        free(r->user - GUARD);
        r->next = spare;
        spare = r;
    }
}

unsigned long long list_visits(void)
{
    return visits;
}
