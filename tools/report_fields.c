/* report_fields.c - the reader's fields: each member of a JSON report read as what it should
 * be, or the reason it is not (the first one found, naming the member) kept for the caller.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fields.h"

void fail(reader_t *rd, const char *fmt, ...)
{
    if (rd->failed)
        return;
    rd->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->err, rd->err_size, fmt, ap);
    va_end(ap);
}

const json_t *need(reader_t *rd, const json_t *obj, const char *key, json_type_t type,
                   const char *where)
{
    static const char *const names[] = {"null",     "true or false", "a number",
                                        "a string", "an array",      "an object"};
    const json_t *v = json_get(obj, key);
    if (v == NULL) {
        fail(rd, "%s%s%s is missing", where, where[0] ? "." : "", key);
        return NULL;
    }
    if (v->type != type) {
        fail(rd, "%s%s%s should be %s", where, where[0] ? "." : "", key, names[type]);
        return NULL;
    }
    return v;
}

/* A whole number that fits in 64 bits (a leading '-' only where signed is true). */
bool number_of(const json_t *v, bool is_signed, int64_t *out)
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

uint64_t u64(reader_t *rd, const json_t *obj, const char *key, const char *where)
{
    int64_t v = 0;
    const json_t *n = need(rd, obj, key, JSON_NUMBER, where);
    if (n != NULL && !number_of(n, false, &v))
        fail(rd, "%s.%s should be a whole number from 0 to 2^64-1", where, key);
    return (uint64_t)v;
}

bool boolean(reader_t *rd, const json_t *obj, const char *key, const char *where)
{
    const json_t *v = need(rd, obj, key, JSON_BOOL, where);
    return v != NULL && v->boolean;
}

/* A string, or NULL when the member is null. */
const char *opt_string(reader_t *rd, const json_t *obj, const char *key, const char *where)
{
    const json_t *v = json_get(obj, key);
    if (v == NULL) {
        fail(rd, "%s.%s is missing", where, key);
        return NULL;
    }
    if (v->type == JSON_NULL)
        return NULL;
    if (v->type != JSON_STRING) {
        fail(rd, "%s.%s should be a string or null", where, key);
        return NULL;
    }
    return v->text;
}

/* An address member ("0x..." or null, which reads as 0). */
uint64_t address_member(reader_t *rd, const json_t *obj, const char *key, const char *where)
{
    const char *s = opt_string(rd, obj, key, where);
    if (s == NULL)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 16);
    if (strncmp(s, "0x", 2) != 0 || *end != '\0' || errno != 0)
        fail(rd, "%s.%s should be \"0x\" and hex digits", where, key);
    return (uint64_t)v;
}

uint64_t address_of(reader_t *rd, const json_t *obj, const char *where)
{
    return address_member(rd, obj, "address", where);
}

void *array_of(reader_t *rd, size_t n, size_t size)
{
    void *p = calloc(n == 0 ? 1 : n, size);
    if (p == NULL)
        fail(rd, "out of memory");
    return p;
}
