/* report_load.h - a saved JSON report read into the report model (report_load.c).
 */
#ifndef MT_TOOL_REPORT_LOAD_H
#define MT_TOOL_REPORT_LOAD_H

#include "json.h"
#include "report/model.h"

/* The tool's name in its messages ("memtrack report", "memtrack run"). */
extern const char *prog;

/* A loaded report: the parsed tree and the model borrowing from it. */
typedef struct loaded {
    json_t *root;
    mt_report_t model;
} loaded_t;

/* Reads the report at path ("-": standard input); false after saying why on stderr. */
bool load(const char *path, loaded_t *out);
void unload(loaded_t *l);

#endif /* MT_TOOL_REPORT_LOAD_H */
