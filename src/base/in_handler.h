/* in_handler.h - whether the calling thread may be running a signal handler
 * (base/in_handler.c).
 */
#ifndef MT_IN_HANDLER_H
#define MT_IN_HANDLER_H

#include "base/platform.h"

/* Notes the C library's signal return trampoline, from the handler the tracker installed
 * (api/crash.c), or SIGSEGV's default action set again when it installed none: at load
 * time, after it. */
void mt_handler_note_trampoline(void);
/* False only when the calling thread is known to run no signal handler: it is the main
 * thread, on its own stack, and no word of that stack from sp up is the return into the
 * trampoline that every handler's frame holds. True wherever that cannot be told (another
 * thread, another platform, a stack part unreadable): a caller must then do only what a
 * signal handler may. */
bool mt_maybe_in_handler(uintptr_t sp);

#endif /* MT_IN_HANDLER_H */
