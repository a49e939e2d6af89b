/* crash_hint.h - the crash report's word on memtrack's patterns in the crash's context
 * (crash_hint.c). */
#ifndef MT_CRASH_HINT_H
#define MT_CRASH_HINT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

/* When the fault address (has_address) or a general register of the signal's context
 * (NULL: none) holds a word of memtrack's freed, new or guard pattern, give or take a
 * field's offset, appends one line saying so ("the crash follows a pointer read from
 * freed or released memory: register rax = 0xdd... is memtrack's fill ...") and returns
 * true. Async-signal-safe. */
bool mt_crash_hint(mt_buf_t *b, const void *context, bool has_address, uintptr_t address);

#endif /* MT_CRASH_HINT_H */
