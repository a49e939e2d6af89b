/* report_load.c - reads a saved JSON report into the report model, for every command of the
 * report tool; a report that cannot be read is said so, escaped, on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_load.h"
#include "report_read.h"

/* "memtrack report: PATH: what is wrong", escaped: the message may quote the report's own
 * words (a member's name), which must not reach the terminal as control characters. */
static void say_bad_report(const char *path, const char *sep, const char *err)
{
    mt_buf_t b;
    mt_buf_init(&b, STDERR_FILENO);
    mt_buf_text(&b, prog);
    mt_buf_str(&b, ": ");
    mt_buf_text(&b, path);
    mt_buf_str(&b, sep);
    mt_buf_text(&b, err);
    mt_buf_char(&b, '\n');
    mt_buf_flush(&b);
}

bool load(const char *path, loaded_t *out)
{
    char err[512];
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    for (size_t n; text != NULL && (n = fread(text + len, 1, cap - len, f)) > 0;) {
        len += n;
        if (len == cap) {
            char *bigger = realloc(text, cap * 2);
            if (bigger == NULL) {
                free(text);
                text = NULL;
            } else {
                text = bigger;
                cap *= 2;
            }
        }
    }
    if (f != stdin)
        fclose(f);
    if (text == NULL) {
        fprintf(stderr, "%s: %s: out of memory\n", prog, path);
        return false;
    }
    out->root = json_parse(text, len, err, sizeof err);
    free(text);
    if (out->root == NULL) {
        say_bad_report(path, " is not valid JSON: ", err);
        return false;
    }
    if (!report_from_json(out->root, &out->model, err, sizeof err)) {
        say_bad_report(path, ": ", err);
        report_release(&out->model);
        json_free(out->root);
        return false;
    }
    return true;
}

void unload(loaded_t *l)
{
    report_release(&l->model);
    json_free(l->root);
}
