/* message.c - the message printed when an error is found: what happened, the block (its
 * size, allocation site and sequence number), where it was released and where it was
 * found, one fact a line. It is worded from the error as the report model has it
 * (mt_error_to_model), with format.c's words for blocks, places and what found an error:
 * the same words as the reports' one-line summaries. Each kind is one row of a table
 * (messages[]): its headline and which of the shared lines follow it, so a new kind of
 * error is a row and, where its words are its own, a short headline function.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <dlfcn.h>
#include <string.h>

#include "base/options.h"
#include "base/symbolize.h"
#include "errors/error.h"
#include "errors/format.h"
#include "errors/message_lines.h"
#include "records/place.h"
#include "records/site.h"

/* Writes "file:line in func()", or for a site known only by address and without line
 * information "0x... in symbol+0x.. (module)": the place a report shows. */
void mt_buf_site(mt_buf_t *b, uint32_t id)
{
    mt_place_t p;
    (void)mt_place_of(id, &p);
    mt_buf_place(b, &p);
}

size_t mt_error_to_model(const mt_error_t *e, mt_report_error_t *out, mt_frame_t *frames,
                         size_t max, mt_wrapper_note_fn note, void *ctx)
{
    memset(out, 0, sizeof *out);
    out->kind = mt_error_names[e->kind];
    out->kind_id = (int)e->kind;
    out->addr = e->addr;
    out->size = e->size;
    out->seq = e->seq;
    out->thread = e->thread;
    (void)mt_place_of(e->alloc_site, &out->alloc);
    (void)mt_place_of(e->free_site, &out->freed); /* kind NULL when there is none */
    (void)mt_place_of(e->found_site, &out->found);
    /* The line of the allocation itself, before wrappers are seen through: page guards
     * are chosen by it (page_guard_site). */
    out->made_file = out->alloc.file;
    out->made_line = out->alloc.line;
    /* The stacks share frames: each place gets a third at most. */
    size_t used = 0, each = max / 3;
    used += mt_place_stack(e->alloc_site, &out->alloc, frames + used, each, note, ctx);
    used += mt_place_stack(e->free_site, &out->freed, frames + used, each, note, ctx);
    used += mt_place_stack(e->found_site, &out->found, frames + used, each, note, ctx);
    out->changed = e->changed;
    out->spans = e->spans;
    out->extent = e->extent;
    out->pointer = e->pointer;
    out->offset = e->offset;
    bool invalid = e->kind == MT_ERROR_INVALID_FREE;
    out->what = invalid ? mt_pointer_class_names[e->what] : NULL;
    out->what_id = invalid ? (int)e->what : MT_POINTER_COUNT;
    static const char *const accesses[] = {NULL, "read", "write", "read or write"};
    out->access = e->access < 4 ? accesses[e->access] : NULL;
    return used;
}

/* What found an error (format.c words it), for a site id. */
void mt_buf_found_by_site(mt_buf_t *b, uint32_t site)
{
    mt_place_t p;
    (void)mt_place_of(site, &p);
    mt_buf_found_by(b, &p, mt_opt.check_every);
}

/* "  freed at x.c:3 in f() by free" */
static void print_freed_line(mt_buf_t *b, const mt_report_error_t *e)
{
    int kind = mt_place_kind(&e->freed);
    mt_buf_line(b);
    mt_buf_str(b, "  freed at ");
    mt_buf_place(b, &e->freed);
    mt_buf_str(b, " by ");
    mt_buf_str(b, mt_kind_names[kind]);
    if (kind == MT_KIND_REALLOC || kind == MT_KIND_REALLOCARRAY)
        mt_buf_str(b, ", which moved it");
    mt_buf_char(b, '\n');
    mt_buf_stack_lines(b, &e->freed, STACK_INDENT);
}

static bool found_by_realloc(const mt_report_error_t *e)
{
    int kind = mt_place_kind(&e->found);
    return kind == MT_KIND_REALLOC || kind == MT_KIND_REALLOCARRAY;
}

/* " (in libfoo.so, symbol+0x10)" for an address inside a loaded module. */
static void print_module_of(mt_buf_t *b, uintptr_t p)
{
    Dl_info info;
    if (mt_in_crash)
        return;
    if (dladdr((void *)p, &info) == 0 || info.dli_fname == NULL) {
        if (mt_in_program_image(p)) { /* a static program: no symbols for dladdr */
            mt_buf_str(b, " in ");
            mt_buf_str(b, mt_program_name());
        }
        return;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    mt_buf_str(b, " in ");
    mt_buf_str(b, info.dli_fname[0] == '\0' ? mt_program_name()
                  : slash != NULL           ? slash + 1
                                            : info.dli_fname);
    if (info.dli_sname != NULL) {
        mt_buf_str(b, ", ");
        mt_buf_str(b, info.dli_sname);
        if (p != (uintptr_t)info.dli_saddr) {
            mt_buf_char(b, '+');
            mt_buf_hex(b, (uint64_t)(p - (uintptr_t)info.dli_saddr));
        }
    }
}

/* ---- headlines: the first line of each kind's message -------------------------------
 * Each returns the lines that follow it (MT_LINE_*): its row's, or fewer or more where the
 * error at hand says so. */

static unsigned overrun(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "overrun after ");
    mt_buf_block_name(b, e);
    mt_buf_str(b, ": ");
    mt_buf_count(b, e->changed, "byte", "bytes");
    /* past other blocks' guards, only the guards show: a bound from below */
    mt_buf_str(b, e->spans != 0 ? " changed, at least " : " changed, up to ");
    mt_buf_count(b, e->extent, "byte", "bytes");
    mt_buf_str(b, " past its end");
    mt_buf_spans(b, e); /* said once, here, not as underruns of the blocks after it */
    mt_buf_char(b, '\n');
    return lines;
}

static unsigned underrun(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "underrun before ");
    mt_buf_block_name(b, e);
    mt_buf_str(b, ": ");
    mt_buf_count(b, e->changed, "byte", "bytes");
    mt_buf_str(b, " changed, up to ");
    mt_buf_count(b, e->extent, "byte", "bytes");
    mt_buf_str(b, " before its start\n");
    return lines;
}

static unsigned double_free(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, found_by_realloc(e) ? "realloc of freed " : "double free of ");
    mt_buf_block_name(b, e);
    mt_buf_char(b, '\n');
    return lines;
}

static unsigned write_after_free(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "write after free to ");
    mt_buf_block_name(b, e);
    mt_buf_str(b, ": ");
    mt_buf_count(b, e->changed, "byte", "bytes");
    if (e->extent - (size_t)e->offset == 1)
        mt_buf_fmt(b, " changed at offset %" PRIu64 "\n", (uint64_t)e->offset);
    else
        mt_buf_fmt(b, " changed from offset %" PRIu64 " to %" PRIu64 "\n", (uint64_t)e->offset,
                   e->extent - 1);
    return lines;
}

/* What the pointer was, and what was done with it; the block's lines only for a pointer
 * inside one. */
static unsigned invalid_free(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    bool by_realloc = found_by_realloc(e);
    mt_buf_str(b, by_realloc ? "realloc of " : "free of ");
    switch ((mt_pointer_class_t)e->what_id) {
    case MT_POINTER_INSIDE_LIVE:
    case MT_POINTER_INSIDE_FREED:
        mt_buf_str(b, e->what_id == MT_POINTER_INSIDE_LIVE ? "a pointer inside "
                                                           : "a pointer inside freed ");
        mt_buf_block_name(b, e);
        mt_buf_str(b, ", ");
        mt_buf_from_start(b, e->offset);
        break;
    case MT_POINTER_STACK:
    case MT_POINTER_STATIC:
    case MT_POINTER_WILD:
    case MT_POINTER_UNKNOWN:
        mt_buf_fmt(b, "%s (0x%" PRIx64, e->what, e->pointer);
        if (e->what_id == MT_POINTER_STATIC)
            print_module_of(b, (uintptr_t)e->pointer);
        mt_buf_char(b, ')');
        if (e->what_id == MT_POINTER_WILD)
            mt_buf_str(b, ", not readable");
        break;
    case MT_POINTER_NOT_HEAP:
        mt_buf_fmt(b, "0x%" PRIx64 ", which the C library did not allocate", e->pointer);
        break;
    case MT_POINTER_RELEASED:
        mt_buf_fmt(b, "0x%" PRIx64 ", a block the C library already has back", e->pointer);
        break;
    case MT_POINTER_COUNT: break;
    }
    mt_buf_str(b, by_realloc ? "; realloc returns NULL\n" : "; left alone\n");
    if (e->what_id == MT_POINTER_INSIDE_LIVE)
        return lines | MT_LINE_BLOCK;
    if (e->what_id == MT_POINTER_INSIDE_FREED)
        return lines | MT_LINE_BLOCK | MT_LINE_FREED;
    return lines;
}

/* "mismatched delete of block #4 (40 bytes) made by new[]: release it with delete[]" */
static unsigned mismatch(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    int made = mt_place_kind(&e->alloc);
    mt_buf_fmt(b, "mismatched %s of ", mt_kind_names[mt_place_kind(&e->found)]);
    mt_buf_block_name(b, e);
    mt_buf_fmt(b, " made by %s: release it with %s\n", mt_kind_names[made],
               mt_kind_names[mt_kind_release[made]]);
    return lines;
}

/* "delete of block #4 (24 bytes) as 16 bytes: deleted through a base class without a
 * virtual destructor?" */
static unsigned delete_size(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_fmt(b, "%s of ", mt_kind_names[mt_place_kind(&e->found)]);
    mt_buf_block_name(b, e);
    mt_buf_str(b, " as ");
    mt_buf_count(b, e->extent, "byte", "bytes");
    mt_buf_str(b, ": deleted through a base class without a virtual destructor?\n");
    return lines;
}

/* A use after free is only ever caught at its access (fault below): no words of its own. */
static unsigned no_words(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    return lines;
}

/* "overrun (write) of block #3 (13 bytes) at offset 13, by main() at x.c:14": the access
 * that faulted at a page-guarded block (checks/page_guard.c), where it fell and the
 * instruction that made it; any kind's, in place of the kind's own headline. */
static unsigned fault(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    if (!mt_buf_owned_fault_head(b, e)) {
        mt_buf_fmt(b, "%s (%s) of ", e->kind, e->access);
        mt_buf_block_name(b, e);
    }
    mt_buf_fmt(b, " at offset %" PRId64 ", by ", e->offset);
    if (e->found.file != NULL) {
        if (e->found.func != NULL && e->found.func[0] != '\0')
            mt_buf_fmt(b, "%-s() at ", e->found.func);
        mt_buf_fmt(b, "%-s:%" PRIu64, e->found.file,
                   (uint64_t)(e->found.line < 0 ? 0 : e->found.line));
    } else {
        mt_buf_place(b, &e->found); /* no line information: the address and symbol */
    }
    mt_buf_char(b, '\n');
    if (e->freed.kind == NULL)
        return lines;
    /* a pool's, an arena's or a registrar's block: released by its owner */
    return lines |
           (mt_kind_owned((mt_kind_t)mt_place_kind(&e->alloc)) ? MT_LINE_RELEASED : MT_LINE_FREED);
}

/* After damage to a block's guard bytes: the option that makes the next run catch the
 * access itself, which the guard check cannot see. */
static void print_rerun_hint(mt_buf_t *b, const mt_report_error_t *e)
{
    if (!MT_HAVE_PAGE_GUARDS || e->made_file == NULL ||
        mt_kind_owned((mt_kind_t)mt_place_kind(&e->alloc)))
        return; /* (pools, arenas and registrars lay out their own memory) */
    mt_buf_line(b);
    mt_buf_fmt(b, "  rerun with MEMTRACK_OPTIONS=page_guard_site=%-s:%" PRIu64, e->made_file,
               (uint64_t)(e->made_line < 0 ? 0 : e->made_line));
    if (e->kind_id == MT_ERROR_UNDERRUN)
        mt_buf_str(b, ",page_guard_side=start to name the line that writes before its start\n");
    else
        mt_buf_str(b, " to name the line that writes past its end\n");
}

/* ---- every kind's message: its headline and the lines under it ------------------------ */

typedef struct {
    mt_headline_fn *headline;
    unsigned lines; /* MT_LINE_*, which the headline may change for the error at hand */
} message_row_t;

#define OWNED (MT_LINE_BLOCK_IF_KNOWN | MT_LINE_RELEASED | MT_LINE_FOUND)
static const message_row_t messages[MT_ERROR_COUNT] = {
    [MT_ERROR_OVERRUN] = {overrun, MT_LINE_BLOCK | MT_LINE_FOUND | MT_LINE_RERUN},
    [MT_ERROR_UNDERRUN] = {underrun, MT_LINE_BLOCK | MT_LINE_FOUND | MT_LINE_RERUN},
    [MT_ERROR_POOL_DOUBLE_RELEASE] = {mt_headline_pool_double_release, OWNED},
    [MT_ERROR_POOL_INTERIOR_RELEASE] = {mt_headline_pool_interior_release, OWNED},
    [MT_ERROR_POOL_FOREIGN_RELEASE] = {mt_headline_pool_foreign_release, OWNED},
    [MT_ERROR_POOL_WRITE_AFTER_RELEASE] = {mt_headline_write_after_release, OWNED},
    [MT_ERROR_POOL_LIVE_AT_DESTROY] = {mt_headline_pool_live, MT_LINE_RELEASED | MT_LINE_FOUND},
    [MT_ERROR_POOL_LIVE_AT_MARK] = {mt_headline_pool_live, MT_LINE_RELEASED | MT_LINE_FOUND},
    [MT_ERROR_ARENA_WRITE_AFTER_RELEASE] = {mt_headline_write_after_release, OWNED},
    [MT_ERROR_ARENA_BAD_MARK] = {mt_headline_arena_bad_mark, OWNED},
    [MT_ERROR_OWNED_FREE] = {mt_headline_owned_free, OWNED},
    [MT_ERROR_REGISTER_CONFLICT] = {mt_headline_register_conflict, OWNED},
    [MT_ERROR_UNREGISTER_UNKNOWN] = {mt_headline_unregister_unknown, OWNED},
    [MT_ERROR_UNREGISTER_OWNER] = {mt_headline_unregister_owner, OWNED},
    [MT_ERROR_MISMATCH] = {mismatch, MT_LINE_BLOCK | MT_LINE_FOUND},
    [MT_ERROR_DELETE_SIZE] = {delete_size, MT_LINE_BLOCK | MT_LINE_FOUND},
    [MT_ERROR_DOUBLE_FREE] = {double_free, MT_LINE_BLOCK | MT_LINE_FREED | MT_LINE_FOUND},
    [MT_ERROR_WRITE_AFTER_FREE] = {write_after_free, MT_LINE_BLOCK | MT_LINE_FREED | MT_LINE_FOUND},
    [MT_ERROR_INVALID_FREE] = {invalid_free, MT_LINE_FOUND},
    [MT_ERROR_USE_AFTER_FREE] = {no_words, MT_LINE_BLOCK | MT_LINE_FOUND},
};
#undef OWNED
static const message_row_t faulted = {fault, MT_LINE_BLOCK | MT_LINE_PAGE_GUARD};

static void print_error(mt_buf_t *b, const mt_report_error_t *e)
{
    const message_row_t *row =
        e->access != NULL ? &faulted
        : e->kind_id >= 0 && e->kind_id < MT_ERROR_COUNT && messages[e->kind_id].headline != NULL
            ? &messages[e->kind_id]
            : &messages[MT_ERROR_USE_AFTER_FREE];
    mt_buf_line(b);
    mt_buf_str(b, "ERROR: ");
    unsigned lines = row->headline(b, e, row->lines);
    if ((lines & MT_LINE_BLOCK) || ((lines & MT_LINE_BLOCK_IF_KNOWN) && e->alloc.kind != NULL))
        mt_buf_block_line(b, e);
    if (lines & MT_LINE_FREED)
        print_freed_line(b, e);
    if ((lines & MT_LINE_RELEASED) && e->freed.kind != NULL)
        mt_buf_released_line(b, e);
    if ((lines & MT_LINE_PAGE_GUARD) && mt_place_kind(&e->found) == MT_KIND_CRASH) {
        /* (an access that crashed: the crash report names its block, api/crash_hint.c) */
        mt_buf_line(b);
        mt_buf_str(b, "  found by the crash it caused: the block's memory had gone back to the "
                      "C library\n");
    } else if (lines & MT_LINE_PAGE_GUARD) {
        mt_buf_line(b);
        mt_buf_str(b, mt_opt.page_guard_stop
                          ? "  found by its page guard; the program ends here\n"
                          : "  found by its page guard; told once, the program goes on\n");
    }
    if (lines & MT_LINE_FOUND)
        mt_buf_found_line(b, e);
    if (lines & MT_LINE_RERUN)
        print_rerun_hint(b, e);
}

void mt_buf_error_message(mt_buf_t *b, const mt_error_t *raw)
{
    mt_report_error_t e;
    /* A message's stacks, on this thread's stack: inlined functions get less room than in
     * the reports, but no return address goes unshown for them (place.c). */
    mt_frame_t frames[3 * (MESSAGE_FRAMES + MT_INLINE_MAX)];
    size_t depth = mt_opt.stack < MESSAGE_FRAMES ? mt_opt.stack : MESSAGE_FRAMES;
    (void)mt_error_to_model(raw, &e, frames, depth == 0 ? 0 : 3 * (depth + MT_INLINE_MAX), NULL,
                            NULL);
    print_error(b, &e);
}
