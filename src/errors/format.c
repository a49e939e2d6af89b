/* format.c - places and errors in words, from the report model's types: the one wording
 * both the live messages (errors/message.c) and the reports (report/render_*.c) use.
 * Compiled into the memtrack-report tool too: it uses nothing but the model and buf.c.
 * Every string of the model is written escaped (mt_buf_text): a report read back may hold
 * anything.
 */
#include <inttypes.h>
#include <string.h>

#include "errors/format.h"
#include "errors/words.h"
#include "records/kinds.h"

/* The words for each kind of error and each kind of bad pointer. */
const char *const mt_pointer_class_names[MT_POINTER_COUNT] = {
#define MT_POINTER_NAME(name, text) text,
    MT_POINTER_CLASS_LIST(MT_POINTER_NAME)
#undef MT_POINTER_NAME
};

const char *const mt_error_names[MT_ERROR_COUNT] = {
#define MT_ERROR_NAME(name, text) text,
    MT_ERROR_LIST(MT_ERROR_NAME)
#undef MT_ERROR_NAME
};

mt_error_kind_t mt_error_kind_named(const char *name)
{
    unsigned k = 0;
    while (name != NULL && k < MT_ERROR_COUNT && strcmp(mt_error_names[k], name) != 0)
        k++;
    return name != NULL ? (mt_error_kind_t)k : MT_ERROR_COUNT;
}

mt_pointer_class_t mt_pointer_class_named(const char *name)
{
    unsigned k = 0;
    while (name != NULL && k < MT_POINTER_COUNT && strcmp(mt_pointer_class_names[k], name) != 0)
        k++;
    return name != NULL ? (mt_pointer_class_t)k : MT_POINTER_COUNT;
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

void mt_buf_place(mt_buf_t *b, const mt_place_t *p)
{
    if (p->file != NULL) {
        mt_buf_fmt(b, "%-s:%" PRIu64, p->file, (uint64_t)(p->line < 0 ? 0 : p->line));
        if (p->func != NULL && p->func[0] != '\0') { /* "": a C++ namespace-scope initializer */
            mt_buf_fmt(b, " in %-s()", p->func);
        }
        return;
    }
    if (p->pc != 0) {
        mt_buf_hex(b, p->pc);
        if (p->func != NULL) {
            mt_buf_fmt(b, " in %-s+0x%" PRIx64, p->func, p->offset);
        }
        if (p->module != NULL) {
            mt_buf_str(b, " (");
            mt_buf_text(b, basename_of(p->module));
            if (p->func == NULL && p->offset != 0) { /* the crash report's: from its start */
                mt_buf_str(b, "+");
                mt_buf_hex(b, p->offset);
            }
            mt_buf_char(b, ')');
        }
        return;
    }
    mt_buf_str(b, "an unknown site");
}

void mt_buf_stack_lines(mt_buf_t *b, const mt_place_t *where, const char *indent)
{
    const mt_stack_t *s = &where->stack;
    for (size_t i = 0; i < s->nframes; i++) {
        const mt_frame_t *f = &s->frames[i];
        bool inlined = i == 0 ? where->inlined : s->frames[i - 1].inlined;
        mt_place_t p;
        memset(&p, 0, sizeof p);
        mt_place_at_frame(&p, f);
        mt_buf_line(b);
        mt_buf_str(b, indent);
        mt_buf_str(b, inlined ? "inlined into " : "from ");
        mt_buf_place(b, &p);
        mt_buf_char(b, '\n');
    }
}

void mt_buf_found_by(mt_buf_t *b, const mt_place_t *p, uint64_t check_every)
{
    switch (p->kind != NULL ? p->kind_id : MT_KIND_NONE) {
    case MT_KIND_EXIT: mt_buf_str(b, "the exit-time check"); return;
    case MT_KIND_CRASH: mt_buf_str(b, "the crash report"); return;
    case MT_KIND_CHECK: mt_buf_str(b, "memtrack_check()"); break;
    case MT_KIND_PERIODIC:
        mt_buf_str(b, "the periodic check");
        if (check_every != 0) {
            mt_buf_fmt(b, " (check_every=%" PRIu64 ")", check_every);
        }
        break;
    default: mt_buf_text(b, p->kind != NULL ? p->kind : "?"); break;
    }
    if (p->file != NULL || p->pc != 0) {
        mt_buf_str(b, " at ");
        mt_buf_place(b, p);
    }
}

/* "invalid free: a stack address 0x7ff..., found by free at a.c:3 in f()", or for a
 * pointer into a block, the block and where the pointer falls in it. */
void mt_buf_spans(mt_buf_t *b, const mt_report_error_t *e)
{
    if (e->spans == 0)
        return;
    mt_buf_str(b, ", across the guards of the next ");
    if (e->spans == 1) {
        mt_buf_str(b, "block");
    } else {
        mt_buf_u64(b, e->spans);
        mt_buf_str(b, " blocks");
    }
}

void mt_buf_block_name(mt_buf_t *b, const mt_report_error_t *e)
{
    if (e->seq == 0) { /* made inside a system library: only the program's are numbered */
        mt_buf_str(b, "a system library's block (");
    } else {
        mt_buf_fmt(b, "block #%" PRIu64 " (", e->seq);
    }
    mt_buf_count(b, e->size, "byte", "bytes");
    mt_buf_char(b, ')');
}

static void invalid_free_summary(mt_buf_t *b, const mt_report_error_t *e)
{
    mt_buf_text(b, e->kind);
    mt_buf_str(b, ": ");
    if (e->seq != 0) { /* a pointer into a tracked block: name the block */
        mt_buf_str(b, e->freed.kind != NULL ? "a pointer inside freed " : "a pointer inside ");
        mt_buf_block_name(b, e);
        mt_buf_str(b, " allocated at ");
        mt_buf_place(b, &e->alloc);
        if (e->freed.kind != NULL) {
            mt_buf_str(b, ", released at ");
            mt_buf_place(b, &e->freed);
        }
        mt_buf_str(b, ", ");
        mt_buf_from_start(b, e->offset);
    } else {
        mt_buf_fmt(b, "%-s 0x%" PRIx64, e->what, e->pointer);
    }
    mt_buf_str(b, ", found by ");
    mt_buf_found_by(b, &e->found, 0);
}

void mt_buf_error_summary(mt_buf_t *b, const mt_report_error_t *e)
{
    if (e->what != NULL) {
        invalid_free_summary(b, e);
        return;
    }
    mt_buf_text(b, e->kind);
    mt_buf_str(b, ": ");
    mt_buf_block_name(b, e);
    mt_buf_str(b, " allocated at ");
    mt_buf_place(b, &e->alloc);
    if (e->kind_id == MT_ERROR_MISMATCH && e->alloc.kind != NULL) { /* what it is about */
        mt_buf_str(b, " by ");
        mt_buf_text(b, e->alloc.kind);
    }
    if (e->freed.kind != NULL) {
        mt_buf_str(b, ", released at ");
        mt_buf_place(b, &e->freed);
    }
    mt_buf_str(b, ", found by ");
    mt_buf_found_by(b, &e->found, 0);
    if (e->changed != 0 && e->kind_id == MT_ERROR_WRITE_AFTER_FREE) {
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        if (e->extent - (uint64_t)e->offset == 1) {
            mt_buf_str(b, " changed at offset ");
            mt_buf_u64(b, (uint64_t)e->offset);
        } else {
            mt_buf_fmt(b, " changed from offset %" PRIu64 " to %" PRIu64, (uint64_t)e->offset,
                       e->extent - 1);
        }
    } else if (e->changed != 0) {
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        mt_buf_str(b, e->spans != 0 ? " changed, at least " : " changed, ");
        mt_buf_count(b, e->extent, "byte", "bytes");
        mt_buf_str(b, " from the block");
        mt_buf_spans(b, e);
    }
}

/* " at file:line" when the file is known. */
static void at_line(mt_buf_t *b, const char *file, long line)
{
    if (file == NULL)
        return;
    mt_buf_fmt(b, " at %-s:%" PRIu64, file, (uint64_t)(line < 0 ? 0 : line));
}

static void of_thread(mt_buf_t *b, uint64_t thread)
{
    if (thread == 0) {
        mt_buf_str(b, "another thread");
        return;
    }
    mt_buf_str(b, "thread ");
    mt_buf_u64(b, thread);
}

/* The blocks between the holder and the leak: " -> #3 -> #4", the middle of a long chain
 * as " -> ...". from: the first to show (a lost block's own is the holder). */
static void chain(mt_buf_t *b, const mt_holder_t *h, unsigned from)
{
    for (unsigned i = from; i < h->nchain; i++) {
        if (i == 3 && h->chain_length > h->nchain)
            mt_buf_str(b, " -> ...");
        mt_buf_str(b, " -> #");
        mt_buf_u64(b, h->chain[i]);
    }
}

void mt_buf_holder(mt_buf_t *b, const mt_holder_t *h)
{
    if (h->kind == MT_HOLDER_NONE)
        return;
    mt_buf_str(b, "held by ");
    switch (h->kind) {
    case MT_HOLDER_GLOBAL:
    case MT_HOLDER_STATIC:
        mt_buf_text(b, h->name != NULL ? h->name : "a variable");
        if (h->func != NULL) {
            mt_buf_fmt(b, " in %-s()", h->func);
        }
        at_line(b, h->file, h->line);
        break;
    case MT_HOLDER_DATA:
        mt_buf_str(b, "the data of ");
        mt_buf_text(b, h->module != NULL ? h->module : "a module");
        break;
    case MT_HOLDER_THREAD_LOCAL:
        mt_buf_str(b, "the thread-local storage of ");
        of_thread(b, h->thread);
        break;
    case MT_HOLDER_STACK:
        if (h->func != NULL) {
            mt_buf_text(b, h->func);
            mt_buf_str(b, "()");
            at_line(b, h->file, h->line);
        } else {
            mt_buf_str(b, "the stack of ");
            of_thread(b, h->thread);
        }
        break;
    case MT_HOLDER_REGISTER:
        mt_buf_str(b, "the registers of ");
        of_thread(b, h->thread);
        break;
    case MT_HOLDER_ROOT:
        mt_buf_str(b, h->file != NULL ? "the root registered" : "a registered root");
        at_line(b, h->file, h->line);
        break;
    case MT_HOLDER_MAPPED: mt_buf_str(b, "memory the program mapped"); break;
    case MT_HOLDER_LOST:
        mt_buf_str(b, "lost block #");
        mt_buf_u64(b, h->nchain != 0 ? h->chain[0] : 0);
        break;
    default: break;
    }
    chain(b, h, h->kind == MT_HOLDER_LOST ? 1 : 0);
    if (h->offset != 0) {
        mt_buf_str(b, " (a pointer ");
        mt_buf_count(b, h->offset, "byte", "bytes");
        mt_buf_str(b, " into it)");
    }
}
