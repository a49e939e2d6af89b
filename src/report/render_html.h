/* render_html.h - the parts of the HTML report (render_html.c) kept in files of their own.
 */
#ifndef MT_RENDER_HTML_H
#define MT_RENDER_HTML_H

#include "report/model.h"

/* The section with the plot of live bytes over the run (ids timeline-plot, live-bytes,
 * peak-marker, peak-label); nothing when the report has no samples. */
void mt_html_timeline(mt_buf_t *b, const mt_report_t *r);

#endif /* MT_RENDER_HTML_H */
