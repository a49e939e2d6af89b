/* report_fields.h - the fields of a JSON report as the reader takes them (report_fields.c).
 */
#ifndef MT_TOOLS_REPORT_FIELDS_H
#define MT_TOOLS_REPORT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* The state of one read: the first failure's message goes to err. */
typedef struct reader {
    char *err;
    size_t err_size;
    bool failed;
} reader_t;

/* Keeps the first failure's message (printf's format) and marks the read failed. */
void fail(reader_t *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The member key of obj, of the given type; NULL (and a failure naming where.key) when it
 * is missing or of another type. */
const json_t *need(reader_t *rd, const json_t *obj, const char *key, json_type_t type,
                   const char *where);
/* A whole number that fits in 64 bits (a leading '-' only where is_signed is true). */
bool number_of(const json_t *v, bool is_signed, int64_t *out);
/* Members by their type: a count (0 or more), a boolean, a string or null. */
uint64_t u64(reader_t *rd, const json_t *obj, const char *key, const char *where);
bool boolean(reader_t *rd, const json_t *obj, const char *key, const char *where);
const char *opt_string(reader_t *rd, const json_t *obj, const char *key, const char *where);
/* An address member ("0x..." or null, which reads as 0); a place's or frame's "address". */
uint64_t address_member(reader_t *rd, const json_t *obj, const char *key, const char *where);
uint64_t address_of(reader_t *rd, const json_t *obj, const char *where);
/* A place's or a frame's "line" (0: unknown), and its "inlined" (absent: false). */
long line_of(reader_t *rd, const json_t *obj, const char *where);
bool inlined_of(reader_t *rd, const json_t *obj, const char *where);
/* n zeroed items of size bytes (the model's arrays, freed by report_release); NULL after a
 * failure when out of memory. */
void *array_of(reader_t *rd, size_t n, size_t size);

#endif
