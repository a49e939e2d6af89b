/* kinds.c - the allocation kinds' words and release families (kinds.h). Compiled into the
 * report tool too. */
#include <string.h>

#include "records/kinds.h"

const char *const mt_kind_names[MT_KIND_COUNT] = {
#define MT_KIND_NAME(name, text, family) text,
    MT_KIND_LIST(MT_KIND_NAME)
#undef MT_KIND_NAME
};

const unsigned char mt_kind_release[MT_KIND_COUNT] = {
#define MT_KIND_FAMILY(name, text, family) MT_KIND_##family,
    MT_KIND_LIST(MT_KIND_FAMILY)
#undef MT_KIND_FAMILY
};

mt_kind_t mt_kind_named(const char *name)
{
    for (unsigned k = 0; name != NULL && k < MT_KIND_COUNT; k++)
        if (strcmp(mt_kind_names[k], name) == 0)
            return (mt_kind_t)k;
    return MT_KIND_NONE;
}
