/* saved_frames.h - the frames of a saved report that the program could name only by module,
 * function and offset (a cross target without libdw: musl, i686, aarch64, s390x under qemu,
 * Windows under wine), named on the host by file, line and function (inlined ones too) from
 * the module files' DWARF, when those files are at hand. Frames already named by file and
 * line stay as they are; a frame whose module is not found, or whose function its file does
 * not have, stays as it was saved.
 */
#ifndef MT_TOOLS_SAVED_FRAMES_H
#define MT_TOOLS_SAVED_FRAMES_H

#include <stddef.h>

#include "report/model.h"

/* Where the module files are looked for, first found first: each of dirs (by file name: the
 * program and libraries copied somewhere, unstripped builds kept apart), then the path the
 * report saved under sysroot (a cross tree: /usr/aarch64-linux-gnu), then that path itself
 * (relative to the report's working directory; wine's Z: drive is /), then the report's own
 * directory (by file name). */
typedef struct module_search {
    const char *const *dirs;
    size_t ndirs;
    const char *sysroot;     /* NULL: none */
    const char *report_path; /* the JSON report read ("-": none) */
} module_search_t;

typedef struct saved_frames saved_frames_t;

/* Names r's frames (r keeps pointing at the names: release after r); NULL when nothing was
 * opened (no libdw, or no module found). */
saved_frames_t *saved_frames_name(mt_report_t *r, const module_search_t *where);
void saved_frames_release(saved_frames_t *s);

#endif /* MT_TOOLS_SAVED_FRAMES_H */
