/* json_read.c - typed values read from a parsed JSON document, each failure a message
 * that names the member (the report reader's and the fail sweep's primitives): counts,
 * strings, addresses, and places with their call stacks as the report model has them.
 */
#include "json_read.h"
#include "records/kinds.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rd_fail(reader_t *rd, const char *fmt, ...)
{
    if (rd->failed)
        return;
    rd->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->err, rd->err_size, fmt, ap);
    va_end(ap);
}

const json_t *rd_need(reader_t *rd, const json_t *obj, const char *key, json_type_t type,
                      const char *where)
{
    static const char *const names[] = {"null",     "true or false", "a number",
                                        "a string", "an array",      "an object"};
    const json_t *v = json_get(obj, key);
    if (v == NULL) {
        rd_fail(rd, "%s%s%s is missing", where, where[0] ? "." : "", key);
        return NULL;
    }
    if (v->type != type) {
        rd_fail(rd, "%s%s%s should be %s", where, where[0] ? "." : "", key, names[type]);
        return NULL;
    }
    return v;
}

/* A whole number that fits in 64 bits (a leading '-' only where signed is true). */
bool rd_number(const json_t *v, bool is_signed, int64_t *out)
{
    if (v == NULL || v->type != JSON_NUMBER)
        return false;
    const char *s = v->text;
    bool neg = s[0] == '-';
    if (neg && !is_signed)
        return false;
    uint64_t acc = 0;
    for (const char *d = s + neg; *d != '\0'; d++) {
        if (*d < '0' || *d > '9')
            return false; /* fractions and exponents are not counts */
        if (acc > (UINT64_MAX - (uint64_t)(*d - '0')) / 10)
            return false;
        acc = acc * 10 + (uint64_t)(*d - '0');
    }
    if (is_signed && acc > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)acc : (int64_t)acc;
    return true;
}

uint64_t rd_u64(reader_t *rd, const json_t *obj, const char *key, const char *where)
{
    int64_t v = 0;
    const json_t *n = rd_need(rd, obj, key, JSON_NUMBER, where);
    if (n != NULL && !rd_number(n, false, &v))
        rd_fail(rd, "%s.%s should be a whole number from 0 to 2^64-1", where, key);
    return (uint64_t)v;
}

bool rd_bool(reader_t *rd, const json_t *obj, const char *key, const char *where)
{
    const json_t *v = rd_need(rd, obj, key, JSON_BOOL, where);
    return v != NULL && v->boolean;
}

/* A string, or NULL when the member is null. */
const char *rd_string(reader_t *rd, const json_t *obj, const char *key, const char *where)
{
    const json_t *v = json_get(obj, key);
    if (v == NULL) {
        rd_fail(rd, "%s.%s is missing", where, key);
        return NULL;
    }
    if (v->type == JSON_NULL)
        return NULL;
    if (v->type != JSON_STRING) {
        rd_fail(rd, "%s.%s should be a string or null", where, key);
        return NULL;
    }
    return v->text;
}

/* An address member ("0x..." or null, which reads as 0). */
uint64_t rd_address_member(reader_t *rd, const json_t *obj, const char *key, const char *where)
{
    const char *s = rd_string(rd, obj, key, where);
    if (s == NULL)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 16);
    if (strncmp(s, "0x", 2) != 0 || *end != '\0' || errno != 0)
        rd_fail(rd, "%s.%s should be \"0x\" and hex digits", where, key);
    return (uint64_t)v;
}

uint64_t rd_address(reader_t *rd, const json_t *obj, const char *where)
{
    return rd_address_member(rd, obj, "address", where);
}

/* A place's or a frame's "line": a whole number (0: unknown). */
long rd_line(reader_t *rd, const json_t *obj, const char *where)
{
    int64_t line = 0;
    if (!rd_number(rd_need(rd, obj, "line", JSON_NUMBER, where), true, &line))
        rd_fail(rd, "%s.line should be a whole number", where);
    return (long)line;
}

/* "inlined": true when the code was inlined into the next frame; absent (as in reports
 * before format 4): false. */
bool rd_inlined(reader_t *rd, const json_t *obj, const char *where)
{
    return json_get(obj, "inlined") != NULL && rd_bool(rd, obj, "inlined", where);
}

/* A frame of a stack, or a wrapper's function: a place's fields without kind and owner. */
void rd_frame(reader_t *rd, const json_t *obj, mt_frame_t *f, const char *where)
{
    if (obj->type != JSON_OBJECT) {
        rd_fail(rd, "%s should be an object", where);
        return;
    }
    f->pc = rd_address(rd, obj, where);
    f->func = rd_string(rd, obj, "function", where);
    f->file = rd_string(rd, obj, "file", where);
    f->line = rd_line(rd, obj, where);
    f->module = rd_string(rd, obj, "module", where);
    f->dir = json_get(obj, "directory") != NULL ? rd_string(rd, obj, "directory", where) : NULL;
    f->offset = rd_u64(rd, obj, "offset", where);
    f->inlined = rd_inlined(rd, obj, where);
}

/* A place's callers (absent: none, as in reports of format 2). The frames are counted
 * from the array itself and bounded, whatever the report says: at most
 * MT_REPORT_MAX_FRAMES, as the schema states. report_release frees them. */
void rd_stack(reader_t *rd, const json_t *obj, mt_stack_t *s, const char *where)
{
    char sub[160];
    const json_t *frames = json_get(obj, "stack");
    if (frames == NULL)
        return;
    if (frames->type != JSON_ARRAY) {
        rd_fail(rd, "%s.stack should be an array", where);
        return;
    }
    if (frames->count > MT_REPORT_MAX_FRAMES) {
        rd_fail(rd, "%s.stack holds more than %d frames", where, MT_REPORT_MAX_FRAMES);
        return;
    }
    if (frames->count == 0)
        return;
    mt_frame_t *out = rd_array(rd, frames->count, sizeof *out);
    if (out == NULL)
        return;
    s->frames = out;
    s->nframes = frames->count;
    for (size_t i = 0; i < frames->count && !rd->failed; i++) {
        snprintf(sub, sizeof sub, "%s.stack[%zu]", where, i);
        rd_frame(rd, frames->items[i], &out[i], sub);
    }
}

void rd_place(reader_t *rd, const json_t *obj, mt_place_t *p, const char *where)
{
    memset(p, 0, sizeof *p);
    p->kind_id = MT_KIND_NONE;
    if (obj == NULL || obj->type == JSON_NULL)
        return;
    if (obj->type != JSON_OBJECT) {
        rd_fail(rd, "%s should be an object or null", where);
        return;
    }
    p->kind = rd_string(rd, obj, "kind", where);
    p->kind_id = mt_kind_named(p->kind);
    p->file = rd_string(rd, obj, "file", where);
    p->line = rd_line(rd, obj, where);
    p->func = rd_string(rd, obj, "function", where);
    p->owner = rd_string(rd, obj, "owner", where);
    p->module = rd_string(rd, obj, "module", where);
    p->dir = json_get(obj, "directory") != NULL ? rd_string(rd, obj, "directory", where) : NULL;
    p->pc = rd_address(rd, obj, where);
    p->offset = rd_u64(rd, obj, "offset", where);
    rd_stack(rd, obj, &p->stack, where);
    p->inlined = rd_inlined(rd, obj, where) && p->stack.nframes > 0;
}

void *rd_array(reader_t *rd, size_t n, size_t size)
{
    void *p = calloc(n == 0 ? 1 : n, size);
    if (p == NULL)
        rd_fail(rd, "out of memory");
    return p;
}
