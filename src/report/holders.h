/* holders.h - what keeps each leak alive, named for the report: the root a block's chain
 * of pointers starts at (a variable, a stack frame, a thread, a registered root, a lost
 * block) and the blocks between (holders.c).
 */
#ifndef MT_HOLDERS_H
#define MT_HOLDERS_H

#include "api/reach.h"
#include "report/model.h"

typedef struct mt_holders {
    const mt_reach_t *reach;
    uint32_t *top;             /* per block: the first block of its chain, the one a root holds */
    uint32_t *length;          /* per block: the blocks in its chain, itself included */
    struct holder_root *roots; /* per block, for the tops: what the root is */
    size_t size;               /* bytes mapped for the three */
    unsigned thread;           /* the scanning thread's number */
} mt_holders_t;

/* Follows every block's chain to its root. False when there is no memory for it. */
bool mt_holders_init(mt_holders_t *h, const mt_reach_t *reach);
void mt_holders_free(mt_holders_t *h);
/* What holds block i, as a key: blocks of one site with equal keys are one group in the
 * report (held by the same variable, frame, thread or root; directly or through blocks). */
typedef struct mt_holder_key {
    uint8_t kind; /* mt_holder_kind_t */
    bool chained;
    uint64_t id;
} mt_holder_key_t;
mt_holder_key_t mt_holder_key(mt_holders_t *h, uint32_t i);
/* Describes what holds block i (of class leak_class) for the report. */
void mt_holder_describe(mt_holders_t *h, uint32_t i, mt_leak_class_t leak_class, mt_holder_t *out);
/* 0 when two holders print the same (the same words for a report's group); NULL is none. */
int mt_holder_cmp(const mt_holder_t *a, const mt_holder_t *b);

#endif /* MT_HOLDERS_H */
