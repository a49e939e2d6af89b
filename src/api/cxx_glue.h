/* cxx_glue.h - the C interface between the C++ operators (cxx.cpp, compiled as C++) and
 * the tracker (cxx_blocks.c, C11). The tracker's headers are C11 (_Atomic), so the C++
 * side sees nothing but these few declarations.
 */
#ifndef MT_CXX_GLUE_H
#define MT_CXX_GLUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A tracked block for operator new (array false) or new[] (array true) called from pc;
 * align 0 means the default (16). NULL when no memory is left: the caller then runs the
 * new-handler loop. */
void *mt_cxx_alloc(size_t size, size_t align, bool array, void *pc, uint32_t stack);
/* The stack of the operator whose frame and return address these are (records/stack.h). */
uint32_t mt_cxx_stack(void *frame, void *pc);

/* Releases what operator delete (array false) or delete[] (array true) was given, called
 * from pc; frame is the operator's __builtin_frame_address(0), which places its caller on
 * the stack for the opt-in delete macro (memtrack_cxx_delete_site), and stack the stack of
 * its call (mt_cxx_stack, taken in the operator itself). align is 0 for the
 * forms without std::align_val_t, size 0 when not known. Never throws; a mismatched
 * release is reported and the block is released correctly. */
void mt_cxx_release(void *ptr, size_t align, size_t size, bool array, void *pc, void *frame,
                    uint32_t stack);

/* Out of memory in a throwing operator new with no C++ runtime loaded to throw
 * std::bad_alloc (a C program that dlopen()ed a C++ library): says so and aborts. */
void mt_cxx_no_runtime(size_t size) __attribute__((noreturn));

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MT_CXX_GLUE_H */
