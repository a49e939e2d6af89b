/* error.h - heap errors, printed when found and kept for the report.
 */
#ifndef MT_ERROR_H
#define MT_ERROR_H

#include "base/buf.h"
#include "base/platform.h"
#include "errors/words.h"
#include "report/model.h"
#include "records/place.h" /* mt_wrapper_note_fn */
#include "records/table.h"

typedef struct mt_error {
    mt_error_kind_t kind;
    uintptr_t addr;      /* the block (or pointer) involved */
    size_t size;         /* the block's requested size */
    uint64_t seq;        /* the block's sequence number, 0 if none */
    unsigned thread;     /* the thread that allocated it, 0 if unknown */
    uint32_t alloc_site; /* where the block was allocated */
    uint32_t free_site;  /* where it was first released, when that matters */
    uint32_t found_site; /* where the error was found (a free, a check, exit) */
    size_t changed;      /* bytes found changed */
    size_t spans;        /* overrun: blocks after this one whose guards it reached too */
    size_t extent;       /* bytes past the end / before the start reached; write after
                            free: one past the last changed byte */
    int64_t offset;      /* pool and arena errors: where, from the block's start; write
                            after free: the first changed byte; invalid free inside a
                            block: the pointer minus the block's start */
    uintptr_t pointer;   /* invalid free: the pointer the program passed */
    unsigned what;       /* invalid free: what the pointer is (mt_pointer_class_t) */
    unsigned access;     /* a fault at a page guard: 1 read, 2 write, 3 either (0: none);
                            found_site is the access, offset where it fell */
} mt_error_t;

/* Prints the messages this thread kept while it held a lock (see base/lock.h). */
void mt_error_print_pending(void);
/* Fills the error's block fields (address, size, sequence number, thread, allocation
 * site) from a record copy. */
void mt_error_from_block(mt_error_t *e, const mt_block_t *b);
/* Starts an error record: all zero but its kind, where it was found and, when b is not
 * NULL, the block's fields. */
void mt_error_init(mt_error_t *e, mt_error_kind_t kind, const mt_block_t *b, uint32_t found_site);
/* message.c: the message for one error, and what found it ("free at x.c:3 in f()"). */
void mt_buf_error_message(mt_buf_t *b, const mt_error_t *e);
void mt_buf_found_by_site(mt_buf_t *b, uint32_t site);
/* Writes "file:line in func()" or "0x... in func (module)". */
void mt_buf_site(mt_buf_t *b, uint32_t id);

/* The error as the report model has it (places resolved and seen through allocation
 * wrappers, each wrapper told to note when not NULL: records/place.h; their stacks in
 * frames[0..max)): what the live message and every report are worded from. Returns the
 * frames used. */
size_t mt_error_to_model(const mt_error_t *e, mt_report_error_t *out, mt_frame_t *frames,
                         size_t max, mt_wrapper_note_fn note, void *ctx);
/* Records and prints (within the message cap) one error; with abort_on_error, aborts. */
void mt_error_report(const mt_error_t *e);
/* Reports a double free of the block whose record (quarantined, gone back or page-guarded)
 * copy is, found at site: both releases named. */
void mt_error_double_free(const mt_block_t *copy, uint32_t site);
/* True while messages for (kind, site) are still printed: work done only to make a message
 * better (classifying a pointer) is skipped once the cap is reached. */
bool mt_error_will_print(mt_error_kind_t kind, uint32_t site);
/* (kind, site) pairs whose messages passed the cap, with how many were not printed, most
 * first; returns how many (at most max). */
typedef struct mt_capped {
    mt_error_kind_t kind;
    uint32_t site;
    uint64_t count;
} mt_capped_t;
size_t mt_error_not_printed(mt_capped_t *out, size_t max);
/* Tests observe every error here (called before printing, outside any shard lock only on
 * the free path). NULL by default. */
extern void (*mt_error_observer)(const mt_error_t *e);
size_t mt_error_total(void);
size_t mt_error_count(mt_error_kind_t kind);
/* Errors the log keeps for the report (the first ones; all are counted). 32 on bare metal. */
#define MT_ERROR_LOG_MAX MT_SMALL(1024, 32)
/* How many errors the log holds (at most MT_ERROR_LOG_MAX). */
size_t mt_error_logged(void);
/* Copies up to max logged errors into out; returns how many. */
size_t mt_error_log(mt_error_t *out, size_t max);
void mt_errors_lock_all(void);
void mt_errors_unlock_all(void);

#endif /* MT_ERROR_H */
