/* model.c - helpers on the report model shared by the renderers and the library. */
#include "report/model.h"

bool mt_report_found(const mt_report_t *r)
{
    return r->errors != 0 || (r->leak_check && r->leaked_blocks != 0);
}

void mt_place_at_frame(mt_place_t *p, const mt_frame_t *f)
{
    p->file = f->file;
    p->line = f->line;
    p->func = f->func;
    p->module = f->module;
    p->pc = f->pc;
    p->offset = f->offset;
    p->inlined = f->inlined;
}

uint64_t mt_report_blocks_at_peak(const mt_report_t *r)
{
    if (r->stats.peak_bytes != 0 && r->peak.bytes == r->stats.peak_bytes &&
        r->peak.blocks <= r->stats.peak_blocks)
        return r->peak.blocks;
    return r->stats.peak_blocks;
}
