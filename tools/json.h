/* json.h - a small JSON reader for the memtrack-report tool: text in, a tree out.
 *
 * Strict RFC 8259: one value, no comments, no trailing commas; strings are decoded
 * (escapes, surrogate pairs) to UTF-8. Numbers keep their text, so a reader can take
 * them as 64-bit integers exactly. Objects keep their members in document order.
 */
#ifndef MT_TOOLS_JSON_H
#define MT_TOOLS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_type_t;

typedef struct json {
    json_type_t type;
    bool boolean;
    char *text;          /* a number's text, a string's decoded bytes */
    size_t count;        /* members of an array or object */
    struct json **items; /* the members' values */
    char **keys;         /* an object's member names */
} json_t;

/* Parses text; NULL on error, with "line L, column C: what" in err. */
json_t *json_parse(const char *text, size_t len, char *err, size_t err_size);
void json_free(json_t *v);
/* The member of an object named key, or NULL (also when v is not an object). */
const json_t *json_get(const json_t *v, const char *key);

#endif
