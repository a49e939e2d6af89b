/* message.c - the message printed when an error is found: what happened, the block (its
 * size, allocation site and sequence number), where it was released and where it was
 * found, one fact a line. It is worded from the error as the report model has it
 * (mt_error_to_model), with format.c's words for blocks, places and what found an error:
 * the same words as the reports' one-line summaries.
 */
#define _GNU_SOURCE
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

/* The first line of an invalid free: what the pointer was, and what was done with it. */
static void print_invalid_free(mt_buf_t *b, const mt_report_error_t *e)
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
        mt_buf_str(b, e->what);
        mt_buf_str(b, " (");
        mt_buf_hex(b, e->pointer);
        if (e->what_id == MT_POINTER_STATIC)
            print_module_of(b, (uintptr_t)e->pointer);
        mt_buf_char(b, ')');
        if (e->what_id == MT_POINTER_WILD)
            mt_buf_str(b, ", not readable");
        break;
    case MT_POINTER_NOT_HEAP:
        mt_buf_hex(b, e->pointer);
        mt_buf_str(b, ", which the C library did not allocate");
        break;
    case MT_POINTER_RELEASED:
        mt_buf_hex(b, e->pointer);
        mt_buf_str(b, ", a block the C library already has back");
        break;
    case MT_POINTER_COUNT: break;
    }
    mt_buf_str(b, by_realloc ? "; realloc returns NULL\n" : "; left alone\n");
}

/* ---- mismatched releases (mismatch.c) ------------------------------------------------ */

/* "mismatched delete of block #4 (40 bytes) made by new[]: release it with delete[]" */
static void print_mismatch(mt_buf_t *b, const mt_report_error_t *e)
{
    int made = mt_place_kind(&e->alloc);
    mt_buf_str(b, "mismatched ");
    mt_buf_str(b, mt_kind_names[mt_place_kind(&e->found)]);
    mt_buf_str(b, " of ");
    mt_buf_block_name(b, e);
    mt_buf_str(b, " made by ");
    mt_buf_str(b, mt_kind_names[made]);
    mt_buf_str(b, ": release it with ");
    mt_buf_str(b, mt_kind_names[mt_kind_release[made]]);
    mt_buf_char(b, '\n');
}

/* "delete of block #4 (24 bytes) as 16 bytes: deleted through a base class without a
 * virtual destructor?" */
static void print_delete_size(mt_buf_t *b, const mt_report_error_t *e)
{
    mt_buf_str(b, mt_kind_names[mt_place_kind(&e->found)]);
    mt_buf_str(b, " of ");
    mt_buf_block_name(b, e);
    mt_buf_str(b, " as ");
    mt_buf_count(b, e->extent, "byte", "bytes");
    mt_buf_str(b, ": deleted through a base class without a virtual destructor?\n");
}

/* ---- page guards (checks/page_guard.c) ------------------------------------------------ */

/* "overrun (write) of block #3 (13 bytes) at offset 13, by main() at x.c:14": the access
 * that faulted at a page-guarded block, where it fell and the instruction that made it. */
static void print_fault(mt_buf_t *b, const mt_report_error_t *e)
{
    if (!mt_buf_owned_fault_head(b, e)) {
        mt_buf_str(b, e->kind);
        mt_buf_str(b, " (");
        mt_buf_str(b, e->access);
        mt_buf_str(b, ") of ");
        mt_buf_block_name(b, e);
    }
    mt_buf_str(b, " at offset ");
    mt_buf_i64(b, e->offset);
    mt_buf_str(b, ", by ");
    if (e->found.file != NULL) {
        if (e->found.func != NULL && e->found.func[0] != '\0') {
            mt_buf_text(b, e->found.func);
            mt_buf_str(b, "() at ");
        }
        mt_buf_text(b, e->found.file);
        mt_buf_char(b, ':');
        mt_buf_u64(b, (uint64_t)(e->found.line < 0 ? 0 : e->found.line));
    } else {
        mt_buf_place(b, &e->found); /* no line information: the address and symbol */
    }
    mt_buf_char(b, '\n');
    mt_buf_block_line(b, e);
    if (e->freed.kind != NULL && !mt_buf_owned_released_line(b, e))
        print_freed_line(b, e);
    mt_buf_line(b);
    mt_buf_str(b, mt_opt.page_guard_stop
                      ? "  found by its page guard; the program ends here\n"
                      : "  found by its page guard; told once, the program goes on\n");
}

/* After damage to a block's guard bytes: the option that makes the next run catch the
 * access itself, which the guard check cannot see. */
static void print_rerun_hint(mt_buf_t *b, const mt_report_error_t *e)
{
    if (!MT_HAVE_PAGE_GUARDS || e->made_file == NULL ||
        mt_kind_owned((mt_kind_t)mt_place_kind(&e->alloc)))
        return; /* (pools, arenas and registrars lay out their own memory) */
    mt_buf_line(b);
    mt_buf_str(b, "  rerun with MEMTRACK_OPTIONS=page_guard_site=");
    mt_buf_text(b, e->made_file);
    mt_buf_char(b, ':');
    mt_buf_u64(b, (uint64_t)(e->made_line < 0 ? 0 : e->made_line));
    if (e->kind_id == MT_ERROR_UNDERRUN)
        mt_buf_str(b, ",page_guard_side=start to name the line that writes before its start\n");
    else
        mt_buf_str(b, " to name the line that writes past its end\n");
}

/* ---- all errors ---------------------------------------------------------------------- */

static void print_error(mt_buf_t *b, const mt_report_error_t *e)
{
    mt_buf_line(b);
    mt_buf_str(b, "ERROR: ");
    if (e->access != NULL) {
        print_fault(b, e);
        return;
    }
    switch (e->kind_id) {
    case MT_ERROR_OVERRUN:
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
        break;
    case MT_ERROR_UNDERRUN:
        mt_buf_str(b, "underrun before ");
        mt_buf_block_name(b, e);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        mt_buf_str(b, " changed, up to ");
        mt_buf_count(b, e->extent, "byte", "bytes");
        mt_buf_str(b, " before its start\n");
        break;
    case MT_ERROR_POOL_DOUBLE_RELEASE:
    case MT_ERROR_POOL_INTERIOR_RELEASE:
    case MT_ERROR_POOL_FOREIGN_RELEASE:
    case MT_ERROR_POOL_WRITE_AFTER_RELEASE:
    case MT_ERROR_POOL_LIVE_AT_DESTROY:
    case MT_ERROR_POOL_LIVE_AT_MARK:
    case MT_ERROR_ARENA_WRITE_AFTER_RELEASE:
    case MT_ERROR_ARENA_BAD_MARK:
    case MT_ERROR_OWNED_FREE:
    case MT_ERROR_REGISTER_CONFLICT:
    case MT_ERROR_UNREGISTER_UNKNOWN:
    case MT_ERROR_UNREGISTER_OWNER: mt_buf_owned_error(b, e); return;
    case MT_ERROR_MISMATCH: print_mismatch(b, e); break;
    case MT_ERROR_DELETE_SIZE: print_delete_size(b, e); break;
    case MT_ERROR_DOUBLE_FREE:
        mt_buf_str(b, found_by_realloc(e) ? "realloc of freed " : "double free of ");
        mt_buf_block_name(b, e);
        mt_buf_char(b, '\n');
        mt_buf_block_line(b, e);
        print_freed_line(b, e);
        mt_buf_found_line(b, e);
        return;
    case MT_ERROR_WRITE_AFTER_FREE:
        mt_buf_str(b, "write after free to ");
        mt_buf_block_name(b, e);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        if (e->extent - (size_t)e->offset == 1) {
            mt_buf_str(b, " changed at offset ");
        } else {
            mt_buf_str(b, " changed from offset ");
            mt_buf_u64(b, (uint64_t)e->offset);
            mt_buf_str(b, " to ");
            mt_buf_u64(b, e->extent - 1);
            mt_buf_char(b, '\n');
            mt_buf_block_line(b, e);
            print_freed_line(b, e);
            mt_buf_found_line(b, e);
            return;
        }
        mt_buf_u64(b, (uint64_t)e->offset);
        mt_buf_char(b, '\n');
        mt_buf_block_line(b, e);
        print_freed_line(b, e);
        mt_buf_found_line(b, e);
        return;
    case MT_ERROR_INVALID_FREE:
        print_invalid_free(b, e);
        if (e->what_id == MT_POINTER_INSIDE_LIVE || e->what_id == MT_POINTER_INSIDE_FREED)
            mt_buf_block_line(b, e);
        if (e->what_id == MT_POINTER_INSIDE_FREED)
            print_freed_line(b, e);
        mt_buf_found_line(b, e);
        return;
    case MT_ERROR_USE_AFTER_FREE:
    case MT_ERROR_COUNT: break;
    }
    mt_buf_block_line(b, e);
    mt_buf_found_line(b, e);
    if (e->kind_id == MT_ERROR_OVERRUN || e->kind_id == MT_ERROR_UNDERRUN)
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
