/* json_read.h - typed values read from a parsed JSON document (json_read.c). Each reader
 * takes the member's key and where it is ("leaks.sites[3]"), and on a missing or mistyped
 * member records the first failure in the reader (later ones are ignored) and returns 0,
 * NULL or false, so a caller reads on and checks rd->failed once at the end.
 */
#ifndef MT_TOOLS_JSON_READ_H
#define MT_TOOLS_JSON_READ_H

#include "json.h"
#include "report/model.h"

typedef struct reader {
    char *err; /* the first failure, as a message */
    size_t err_size;
    bool failed;
} reader_t;

void rd_fail(reader_t *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* obj's member key, of the type asked for; NULL (failed) when missing or of another */
const json_t *rd_need(reader_t *rd, const json_t *obj, const char *key, json_type_t type,
                      const char *where);
/* A whole number that fits in 64 bits (a leading '-' only where is_signed). */
bool rd_number(const json_t *v, bool is_signed, int64_t *out);
uint64_t rd_u64(reader_t *rd, const json_t *obj, const char *key, const char *where);
bool rd_bool(reader_t *rd, const json_t *obj, const char *key, const char *where);
/* A string, or NULL when the member is null. */
const char *rd_string(reader_t *rd, const json_t *obj, const char *key, const char *where);
/* An address ("0x..." or null, which reads as 0). */
uint64_t rd_address_member(reader_t *rd, const json_t *obj, const char *key, const char *where);
uint64_t rd_address(reader_t *rd, const json_t *obj, const char *where);
/* A place's or a frame's "line" (0: unknown). */
long rd_line(reader_t *rd, const json_t *obj, const char *where);
/* "inlined": true when the code was inlined into the next frame; absent: false. */
bool rd_inlined(reader_t *rd, const json_t *obj, const char *where);
/* A frame of a stack, or a wrapper's function: a place's fields without kind and owner. */
void rd_frame(reader_t *rd, const json_t *obj, mt_frame_t *f, const char *where);
/* A place's callers (absent: none), at most MT_REPORT_MAX_FRAMES; the frames are calloc'd
 * (report_release frees them). */
void rd_stack(reader_t *rd, const json_t *obj, mt_stack_t *s, const char *where);
/* A place (null: no place, kind NULL). */
void rd_place(reader_t *rd, const json_t *obj, mt_place_t *p, const char *where);
/* calloc(n, size), at least one element; NULL (failed) when out of memory. */
void *rd_array(reader_t *rd, size_t n, size_t size);

#endif /* MT_TOOLS_JSON_READ_H */
