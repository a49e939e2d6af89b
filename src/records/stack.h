/* stack.h - call stacks, interned: each unique stack is stored once and known by a 32-bit id.
 */
#ifndef MT_STACK_H
#define MT_STACK_H

#include "base/platform.h"

#define MT_STACK_NONE 0u /* id 0: no stack */

/* The id of the stack of the calls that led to the entry point whose frame is `frame` and
 * whose return address is `caller` (base/unwind.h), at the depth of option stack; 0 when
 * stacks are off or none could be taken. Call it before taking any tracker lock. */
uint32_t mt_stack_here(void *frame, void *caller);
/* The id of the stack pcs[0..n) (interned when new); 0 for an empty stack. */
uint32_t mt_stack_intern(void *const *pcs, unsigned n);
/* The return addresses of stack id, innermost first; returns how many (0 for id 0). The
 * array stays valid for the life of the process. */
unsigned mt_stack_get(uint32_t id, void *const **pcs);
void mt_stacks_lock_all(void);
void mt_stacks_unlock_all(void);

/* An entry point that may find an error sets this to its own frame for the time of the
 * call, so the error can name the stack of the call that found it (mt_stack_of_operation). */
extern MT_TLS void *mt_op_frame, *mt_op_caller;
#define MT_OPERATION_AT(frame, caller) (mt_op_frame = (frame), mt_op_caller = (caller))
#define MT_OPERATION_BEGIN()                                                                       \
    MT_OPERATION_AT(__builtin_frame_address(0), __builtin_return_address(0))
#define MT_OPERATION_END() (mt_op_frame = NULL)
/* The stack of the operation running in this thread (see above), or 0. */
uint32_t mt_stack_of_operation(void);

#endif /* MT_STACK_H */
