/* report_fields.h - the JSON report reader's fields (report_fields.c), shared by the parts
 * of the reader (report_read.c).
 */
#ifndef MT_TOOL_REPORT_FIELDS_H
#define MT_TOOL_REPORT_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"

/* The reason a report is refused: the first failure is kept, in err. */
typedef struct reader {
    char *err;
    size_t err_size;
    bool failed;
} reader_t;

/* Keeps the first reason given (printf's format), and that the read failed. */
void fail(reader_t *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* obj's member key of the given type, or NULL after a failure naming WHERE.KEY. */
const json_t *need(reader_t *rd, const json_t *obj, const char *key, json_type_t type,
                   const char *where);
/* A whole number that fits in 64 bits (a leading '-' only where is_signed is true). */
bool number_of(const json_t *v, bool is_signed, int64_t *out);
uint64_t u64(reader_t *rd, const json_t *obj, const char *key, const char *where);
bool boolean(reader_t *rd, const json_t *obj, const char *key, const char *where);
/* A string, or NULL when the member is null. */
const char *opt_string(reader_t *rd, const json_t *obj, const char *key, const char *where);
/* An address member ("0x..." or null, which reads as 0); address_of: "address". */
uint64_t address_member(reader_t *rd, const json_t *obj, const char *key, const char *where);
uint64_t address_of(reader_t *rd, const json_t *obj, const char *where);
/* n zeroed elements of size bytes (n may be 0), or NULL after a failure. */
void *array_of(reader_t *rd, size_t n, size_t size);

#endif /* MT_TOOL_REPORT_FIELDS_H */
