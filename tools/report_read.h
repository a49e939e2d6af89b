/* report_read.h - a JSON report read back into the report model. */
#ifndef MT_TOOLS_REPORT_READ_H
#define MT_TOOLS_REPORT_READ_H

#include "json.h"
#include "report/model.h"

/* Fills *r from a parsed report; false with the reason in err. r borrows root's strings. */
bool report_from_json(const json_t *root, mt_report_t *r, char *err, size_t err_size);
/* Frees the arrays report_from_json made. */
void report_release(mt_report_t *r);

/* A report read from a file: the parsed tree and the model borrowing from it. */
typedef struct report_file {
    json_t *root;
    mt_report_t model;
} report_file_t;
/* Reads and parses path ("-": standard input); false, after a message on stderr that
 * starts with prog (none when prog is NULL), when it cannot. */
bool report_load(const char *path, report_file_t *out, const char *prog);
void report_unload(report_file_t *l);

#endif
