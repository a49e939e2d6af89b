/* crash_hint.h - the crash report's word on memtrack's patterns in the crash's context
 * (crash_hint.c). */
#ifndef MT_CRASH_HINT_H
#define MT_CRASH_HINT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "records/table.h"

/* When the fault address (has_address) or a general register of the signal's context
 * (NULL: none) holds a word of memtrack's freed, new or guard pattern, give or take a
 * field's offset, appends one line saying so ("the crash follows a pointer read from
 * freed or released memory: register rax = 0xdd... is memtrack's fill ...") and returns
 * true. Async-signal-safe. */
bool mt_crash_hint(mt_buf_t *b, const void *context, bool has_address, uintptr_t address);

/* Copies into *out the block whose memory went back to the C library (the shards' rings,
 * checks/quarantine.h) that held address, the one freed last; false when none did. Locks
 * only tried. */
bool mt_crash_gone_block(uintptr_t address, mt_block_t *out);
/* Reports the access at address that crashed, made at access_site (a crash site, kind
 * MT_KIND_CRASH), as a use after free of gone, with its allocation and its free. */
void mt_crash_report_gone(const mt_block_t *gone, uintptr_t address, uint32_t access_site,
                          const void *context);

#endif /* MT_CRASH_HINT_H */
