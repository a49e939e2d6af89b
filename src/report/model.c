/* model.c - helpers on the report model shared by the renderers and the library. */
#include "report/model.h"

bool mt_report_found(const mt_report_t *r)
{
    return r->errors != 0 || (r->leak_check && r->leaked_blocks != 0);
}
