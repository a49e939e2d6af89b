/* own_data.h - where the tracker's own static data lies, so that the leak scan never takes
 * it for the program's: the error log, the page guards' slots and the C++ operators' recent
 * blocks hold block addresses, and in a static link they sit in the program's .data and
 * .bss (in libmemtrack.so, in its own).
 *
 * own_data_begin.c is linked first and own_data_end.c last into libmemtrack's object (the
 * Makefile: memtrack-c.o, and libmemtrack.so in the same order), each with one marker in
 * every writable section the library's code uses. A linker keeps an object's section in
 * one piece, in the order its inputs were named, so each section of libmemtrack's data
 * runs from its begin marker to just past its end marker. test/command/own_data.sh checks
 * that the library has no writable section without markers.
 */
#ifndef MT_OWN_DATA_H
#define MT_OWN_DATA_H

#include "base/platform.h"

/* X(name): one marker pair per section, mt_own_begin_NAME and mt_own_end_NAME. */
#if defined(_WIN32) || defined(MT_BARE_METAL)
#define MT_OWN_SECTIONS(X) X(data) X(bss)
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                           \
    !defined(__SANITIZE_ADDRESS__) /* MT_COLD's .lbss (base/platform.h) */
#define MT_OWN_SECTIONS(X) X(data) X(data_rel) X(data_rel_local) X(bss) X(lbss)
#else
#define MT_OWN_SECTIONS(X) X(data) X(data_rel) X(data_rel_local) X(bss)
#endif

/* Thread-local sections: every thread has its copy, at the same place in its block (mingw
 * keeps thread-local variables in the C runtime's heap, and bare metal has one thread:
 * neither has any). */
#if defined(_WIN32) || defined(MT_BARE_METAL)
#define MT_OWN_THREAD_SECTIONS(X)
#else
#define MT_OWN_THREAD_SECTIONS(X) X(tdata) X(tbss)
#endif

#define MT_OWN_DECLARE(name) extern char mt_own_begin_##name[1], mt_own_end_##name[1];
MT_OWN_SECTIONS(MT_OWN_DECLARE)
#undef MT_OWN_DECLARE
#define MT_OWN_DECLARE_THREAD(name)                                                                \
    extern __thread char mt_own_begin_##name[1], mt_own_end_##name[1];
MT_OWN_THREAD_SECTIONS(MT_OWN_DECLARE_THREAD)
#undef MT_OWN_DECLARE_THREAD

/* A range of addresses, [start, end). */
typedef struct mt_span {
    uintptr_t start, end;
} mt_span_t;

#define MT_OWN_SPANS_MAX 8u
/* The tracker's static data, as spans (at most MT_OWN_SPANS_MAX); returns how many. */
size_t mt_own_data_spans(mt_span_t *out);
/* The calling thread's copy of the tracker's thread-local data; returns how many. */
size_t mt_own_thread_spans(mt_span_t *out);

#endif /* MT_OWN_DATA_H */
