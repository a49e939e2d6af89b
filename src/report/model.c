/* model.c - helpers on the report model shared by the renderers and the library. */
#include <string.h>

#include "report/model.h"

const char *const mt_leak_class_json[MT_LEAK_CLASS_COUNT] = {
#define MT_LEAK_CLASS_JSON(id, json, text, why) json,
    MT_LEAK_CLASS_LIST(MT_LEAK_CLASS_JSON)
#undef MT_LEAK_CLASS_JSON
};
const char *const mt_leak_class_text[MT_LEAK_CLASS_COUNT] = {
#define MT_LEAK_CLASS_TEXT(id, json, text, why) text,
    MT_LEAK_CLASS_LIST(MT_LEAK_CLASS_TEXT)
#undef MT_LEAK_CLASS_TEXT
};
const char *const mt_leak_class_why[MT_LEAK_CLASS_COUNT] = {
#define MT_LEAK_CLASS_WHY(id, json, text, why) why,
    MT_LEAK_CLASS_LIST(MT_LEAK_CLASS_WHY)
#undef MT_LEAK_CLASS_WHY
};
const char *const mt_holder_json[MT_HOLDER_COUNT] = {
#define MT_HOLDER_JSON(id, json) json,
    MT_HOLDER_LIST(MT_HOLDER_JSON)
#undef MT_HOLDER_JSON
};

mt_leak_class_t mt_leak_class_named(const char *json)
{
    for (int c = MT_LEAK_LOST; json != NULL && c < MT_LEAK_CLASS_COUNT; c++)
        if (strcmp(json, mt_leak_class_json[c]) == 0)
            return (mt_leak_class_t)c;
    return MT_LEAK_UNCLASSIFIED;
}

mt_holder_kind_t mt_holder_named(const char *json)
{
    for (int k = 1; json != NULL && k < MT_HOLDER_COUNT; k++)
        if (strcmp(json, mt_holder_json[k]) == 0)
            return (mt_holder_kind_t)k;
    return MT_HOLDER_NONE;
}

bool mt_report_found(const mt_report_t *r)
{
    return r->errors != 0 || (r->leak_check && r->leaked_blocks != 0);
}

uint64_t mt_report_blocks_at_peak(const mt_report_t *r)
{
    if (r->stats.peak_bytes != 0 && r->peak.bytes == r->stats.peak_bytes &&
        r->peak.blocks <= r->stats.peak_blocks)
        return r->peak.blocks;
    return r->stats.peak_blocks;
}
