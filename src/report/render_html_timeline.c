/* render_html_timeline.c - the HTML report's plot of live bytes over the run (inline SVG,
 * the peak marked), its section of the page render_html.c writes.
 *
 * Coordinates are computed with integers: the plot is 900 x 300 units.
 */
#include <inttypes.h>

#include "report/model.h"

#define PLOT_W 900u
#define PLOT_H 300u
#define PLOT_LEFT 80u
#define PLOT_RIGHT 20u
#define PLOT_TOP 30u
#define PLOT_BOTTOM 40u

/* Smallest 1, 2 or 5 times a power of ten at or above v (1 for 0): a step for counts. */
static uint64_t decimal_step(uint64_t v)
{
    uint64_t p = 1;
    for (;;) {
        if (v <= p)
            return p;
        if (v <= 2 * p)
            return 2 * p;
        if (v <= 5 * p)
            return 5 * p;
        if (p > UINT64_MAX / 100)
            return v;
        p *= 10;
    }
}

/* Smallest power of two, or 3 times one, at or above v: a step for bytes, so the ticks
 * read 256 bytes, 512 bytes, 1.0 KiB or 1.5 KiB, 3.0 KiB, 4.5 KiB. */
static uint64_t binary_step(uint64_t v)
{
    uint64_t p = 1;
    for (;;) {
        if (v <= p)
            return p;
        if (p >= 2 && v <= p / 2 * 3)
            return p / 2 * 3;
        if (p > UINT64_MAX / 4)
            return v;
        p *= 2;
    }
}

typedef struct plot {
    uint64_t max_event, max_bytes;
    uint64_t event_step; /* between ticks on the x axis */
} plot_t;

static uint64_t px(const plot_t *p, uint64_t event)
{
    const uint64_t w = PLOT_W - PLOT_LEFT - PLOT_RIGHT;
    return PLOT_LEFT + (event >= p->max_event ? w : event * w / p->max_event);
}

static uint64_t py(const plot_t *p, uint64_t bytes)
{
    const uint64_t h = PLOT_H - PLOT_TOP - PLOT_BOTTOM;
    uint64_t up = bytes >= p->max_bytes    ? h
                  : bytes > UINT64_MAX / h ? bytes / (p->max_bytes / h + 1)
                                           : bytes * h / p->max_bytes;
    return PLOT_TOP + h - up;
}

static void point(mt_buf_t *b, const plot_t *p, uint64_t event, uint64_t bytes)
{
    mt_buf_fmt(b, "%" PRIu64 ",%" PRIu64 " ", px(p, event), py(p, bytes));
}

/* The samples with the peak put in its place, as "x,y " pairs. */
static void points(mt_buf_t *b, const mt_report_t *r, const plot_t *p)
{
    bool peak_done = r->peak.event == 0;
    for (size_t i = 0; i < r->nsamples; i++) {
        const mt_sample_t *s = &r->samples[i];
        if (!peak_done && r->peak.event <= s->event) {
            if (r->peak.event < s->event)
                point(b, p, r->peak.event, r->peak.bytes);
            peak_done = true;
        }
        point(b, p, s->event, s->bytes);
    }
    if (!peak_done)
        point(b, p, r->peak.event, r->peak.bytes);
}

static void axes(mt_buf_t *b, const plot_t *p)
{
    const uint64_t left = PLOT_LEFT, right = PLOT_W - PLOT_RIGHT;
    for (unsigned t = 0; t <= 4; t++) {
        uint64_t v = p->max_bytes / 4 * t, y = py(p, v);
        mt_buf_fmt(b,
                   "<line class=\"grid\" x1=\"%" PRIu64 "\" x2=\"%" PRIu64 "\" y1=\"%" PRIu64
                   "\" y2=\"%" PRIu64 "\"/><text x=\"%" PRIu64 "\" y=\"%" PRIu64
                   "\" text-anchor=\"end\">",
                   left, right, y, y, left - 8, y + 4);
        mt_buf_size(b, v);
        mt_buf_str(b, "</text>\n");
    }
    /* A tick every event_step, a few at most: counts read from a report may be anything, and
     * a step added up to near 2^64 would wrap and never end. */
    for (uint64_t t = 0; t <= 10; t++) {
        if (t > 0 && p->event_step > p->max_event / t)
            break; /* the next tick, event_step * t, would pass max_event */
        uint64_t e = p->event_step * t;
        uint64_t x = px(p, e);
        mt_buf_fmt(b,
                   "<text x=\"%" PRIu64 "\" y=\"%" PRIu64 "\" text-anchor=\"middle\">%" PRIu64
                   "</text>\n",
                   x, (uint64_t)(PLOT_H - PLOT_BOTTOM + 18), e);
    }
    mt_buf_fmt(b,
               "<line class=\"axis\" x1=\"%" PRIu64 "\" x2=\"%" PRIu64 "\" y1=\"%" PRIu64
               "\" y2=\"%" PRIu64 "\"/>\n<text x=\"%" PRIu64 "\" y=\"%" PRIu64
               "\" text-anchor=\"middle\">allocations and frees so far</text>\n",
               left, right, (uint64_t)(PLOT_H - PLOT_BOTTOM), (uint64_t)(PLOT_H - PLOT_BOTTOM),
               (left + right) / 2, (uint64_t)(PLOT_H - 4));
}

void mt_render_html_timeline(const mt_report_t *r, mt_buf_t *b)
{
    mt_buf_str(b, "<section id=\"timeline\"><h2>Live memory over the run</h2>\n");
    if (r->nsamples == 0) {
        mt_buf_str(b, "<p class=\"note\">No samples (option timeline=0).</p></section>\n");
        return;
    }
    plot_t p = {1, 1, 1};
    for (size_t i = 0; i < r->nsamples; i++) {
        if (r->samples[i].event > p.max_event)
            p.max_event = r->samples[i].event;
        if (r->samples[i].bytes > p.max_bytes)
            p.max_bytes = r->samples[i].bytes;
    }
    if (r->peak.event > p.max_event)
        p.max_event = r->peak.event;
    if (r->peak.bytes > p.max_bytes)
        p.max_bytes = r->peak.bytes;
    /* Four steps up, each a round number of bytes; the run fills the width, with a tick
     * every round number of events (three to five of them). */
    p.max_bytes = binary_step((p.max_bytes + 3) / 4) * 4;
    p.event_step = decimal_step((p.max_event + 3) / 4);

    mt_buf_fmt(b,
               "<svg id=\"timeline-plot\" viewBox=\"0 0 %" PRIu64 " %" PRIu64
               "\" role=\"img\" aria-label=\"live bytes over the run, peak %" PRIu64
               " bytes\" data-samples=\"%" PRIu64 "\" data-max-bytes=\"%" PRIu64 "\">\n",
               (uint64_t)PLOT_W, (uint64_t)PLOT_H, r->peak.bytes, (uint64_t)r->nsamples,
               p.max_bytes);
    axes(b, &p);
    /* The area under the line, then the line. */
    mt_buf_fmt(b, "<polygon class=\"area\" points=\"%" PRIu64 ",%" PRIu64 " ",
               px(&p, r->samples[0].event), (uint64_t)(PLOT_H - PLOT_BOTTOM));
    points(b, r, &p);
    uint64_t last = r->samples[r->nsamples - 1].event;
    mt_buf_fmt(
        b, "%" PRIu64 ",%" PRIu64 "\"/>\n<polyline id=\"live-bytes\" class=\"line\" points=\"",
        px(&p, last > r->peak.event ? last : r->peak.event), (uint64_t)(PLOT_H - PLOT_BOTTOM));
    points(b, r, &p);
    mt_buf_str(b, "\"/>\n");
    if (r->peak.event != 0) {
        uint64_t x = px(&p, r->peak.event), y = py(&p, r->peak.bytes);
        mt_buf_fmt(b,
                   "<circle id=\"peak-marker\" r=\"6\" cx=\"%" PRIu64 "\" cy=\"%" PRIu64
                   "\" data-bytes=\"%" PRIu64 "\" data-event=\"%" PRIu64 "\"><title>peak: ",
                   x, y, r->peak.bytes, r->peak.event);
        mt_buf_count(b, r->peak.bytes, "byte", "bytes");
        mt_buf_str(b, " in ");
        mt_buf_count(b, r->peak.blocks, "block", "blocks");
        mt_buf_str(b, "</title></circle>\n<text id=\"peak-label\" x=\"");
        /* Keep the label inside the plot: left of the marker in the right half. */
        bool right_half = x > PLOT_W / 2;
        mt_buf_fmt(b, "%" PRIu64 "\" y=\"%" PRIu64 "%s", right_half ? x - 10 : x + 10,
                   y < PLOT_TOP + 14 ? y + 18 : y - 8,
                   right_half ? "\" text-anchor=\"end\">peak " : "\">peak ");
        mt_buf_size(b, r->peak.bytes);
        if (r->peak.bytes >= 1024) {
            mt_buf_str(b, " (");
            mt_buf_count(b, r->peak.bytes, "byte", "bytes");
            mt_buf_char(b, ')');
        }
        mt_buf_str(b, " in ");
        mt_buf_count(b, r->peak.blocks, "block", "blocks");
        mt_buf_str(b, "</text>\n");
    }
    mt_buf_str(b, "</svg>\n<p class=\"note\">Live bytes after each allocation or free, ");
    mt_buf_count(b, r->nsamples, "sample", "samples");
    mt_buf_str(b, "; the last is ");
    mt_buf_size(b, r->samples[r->nsamples - 1].bytes);
    mt_buf_str(b, r->when == MT_WHEN_EXIT ? " at exit.</p>\n</section>\n"
                                          : " when the report was made.</p>\n</section>\n");
}
