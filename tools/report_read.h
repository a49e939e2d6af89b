/* report_read.h - a JSON report read back into the report model. */
#ifndef MT_TOOLS_REPORT_READ_H
#define MT_TOOLS_REPORT_READ_H

#include "json.h"
#include "report/model.h"

/* Fills *r from a parsed report; false with the reason in err. r borrows root's strings. */
bool report_from_json(const json_t *root, mt_report_t *r, char *err, size_t err_size);
/* Frees the arrays report_from_json made. */
void report_release(mt_report_t *r);

#endif
