/* symbolize.h - return addresses into function, file and line (libdw, opened lazily).
 */
#ifndef MT_SYMBOLIZE_H
#define MT_SYMBOLIZE_H

#include "base/platform.h"

/* Targets built without elfutils' headers (the other platforms, README "Platforms") read
 * symbols with dladdr alone: sites made by the macros have their file and line anyway. */
#if defined(__has_include)
#if __has_include(<elfutils/libdwfl.h>)
#define MT_HAVE_LIBDW 1
#endif
#endif

/* The most functions one address's code is named as inlined into (DWARF can nest more: the
 * innermost ones and the real function are kept); none without libdw. */
#ifdef MT_HAVE_LIBDW
#define MT_INLINE_MAX 8
#else
#define MT_INLINE_MAX 0
#endif

/* The frames a stack of depth return addresses may need: one each, and where inlined code
 * is named, depth + MT_INLINE_MAX more at most (records/place.c). Reports size their
 * working memory by it, which a bare-metal target takes from a fixed buffer. */
#define MT_STACK_ROOM(depth) (MT_INLINE_MAX > 0 ? 2 * (depth) + MT_INLINE_MAX : (depth))

/* A function that code was inlined into, at the line of the call the compiler inlined. */
typedef struct mt_inline {
    const char *file; /* as mt_symbol_t's */
    int line;
    const char *func;
} mt_inline_t;

typedef struct mt_symbol {
    const char *file; /* relative to its compilation directory when inside it; NULL when
                         there is no line information (no -g, no libdw) */
    const char *dir;  /* that compilation directory (the unit's DW_AT_comp_dir), or NULL */
    int line;
    const char *func;   /* the function at file:line (an inlined one when the code was
                           inlined), else the symbol; NULL when unknown */
    const char *symbol; /* the symbol around pc, from the symbol tables, or NULL */
    uintptr_t offset;   /* pc - symbol's address */
    size_t size;        /* the symbol's size in bytes (its function's code), 0: unknown */
    const char *module; /* file name of the object (program or library), or NULL */
    /* When pc lies in code inlined into other functions: those functions, innermost first,
     * each at the line of the call that was inlined (the last is the real function, whose
     * call pc returns from); NULL and 0 otherwise. */
    const mt_inline_t *inlined;
    unsigned ninlined;
    /* The code of func around pc: the inlined copy's span when func was inlined, else the
     * symbol's (code_size 0: unknown). Allocation wrappers are judged by it. */
    uintptr_t code_start;
    size_t code_size;
} mt_symbol_t;
/* Function names are demangled when the program has the C++ runtime, and shown without
 * their parameters, as __func__ names them. */

/* Describes the return address pc (the call is the instruction before it); true when a
 * symbol or a file was found. Strings stay valid for the life of the process. Lazy
 * (libdw is opened at the first call) and cached by pc; never allocates through the
 * tracker. Not async-signal-safe. Option symbolize=0 keeps it to the symbol tables. */
bool mt_symbolize(void *pc, mt_symbol_t *out);
/* The same without file, line and inlined functions (file NULL, func the symbol, unless an
 * earlier mt_symbolize of pc found them): the symbol tables only, never a line table. For
 * addresses shown by their symbol, a system library's, whose debug information (a
 * separate file, compressed) would cost a report many times what it prints. */
bool mt_symbolize_symbol(void *pc, mt_symbol_t *out);
/* The module pc lies in, as the loader says (dladdr's file name and base), remembered by
 * address: a report asks it of every frame, and glibc's dladdr reads the module's whole
 * dynamic symbol table each time. No file is opened. False when pc is in no module. */
typedef struct mt_module {
    const char *path; /* the loader's, alive while the module is loaded */
    uintptr_t base;
} mt_module_t;
bool mt_symbol_module(void *pc, mt_module_t *out);
/* The allocation-wrapper rule's answer (records/wrapper.c) for function number level of
 * return address pc, kept by an earlier process in the symbol cache: 0 or 1, -1 when none
 * is; and the answer found, kept for the next process (which then reads no debug
 * information to judge it). making: for a place that makes a block, else one that releases. */
int mt_symbols_wrapper_kept(void *pc, unsigned level, bool making);
void mt_symbols_keep_wrapper(void *pc, unsigned level, bool making, bool answer);
/* Keeps what this process symbolized for the next one (option symbol_cache): after a
 * report. */
void mt_symbols_save(void);
/* mt_symbolize for the crash handler: what an earlier lookup found for pc, if any; nothing
 * is read, opened or waited for (the lock is only tried). */
bool mt_symbolize_cached(void *pc, mt_symbol_t *out);
/* What a function's code is, for the allocation-wrapper rule (records/wrapper.c). */
typedef enum {
    MT_RETURNS_UNKNOWN, /* no type information */
    MT_RETURNS_POINTER, /* a pointer (or a C++ reference) */
    MT_RETURNS_OTHER    /* anything else, void included */
} mt_returns_t;
typedef struct mt_function_code {
    const char *func;     /* its name, as mt_symbol_t's func */
    uintptr_t start;      /* the range of its code that holds the address asked about */
    size_t size;          /* (0 when not known) */
    size_t bytes;         /* all its code: a function split into a hot and a cold part, both */
    mt_returns_t returns; /* what it returns, from its type */
    bool takes_pointer;   /* one of its parameters is a pointer (what a release wrapper frees) */
    bool inlined;         /* an inlined copy, whose code is that copy's */
} mt_function_code_t;

/* The function number `level` of return address pc (0 the innermost, as mt_symbol_t numbers
 * them: the functions of `inlined` follow); true when the debug information describes it.
 * Not cached: its caller keeps what it needs. Not async-signal-safe. */
bool mt_symbolize_function(void *pc, unsigned level, mt_function_code_t *out);
/* The function named func (as __func__ names it) whose code holds source line file:line,
 * in the module that holds address in_module; true when found. For a function whose frame
 * is not on the stack (it jumped to the allocation: a tail call). */
bool mt_symbolize_source(const char *file, int line, const char *func, const void *in_module,
                         mt_function_code_t *out);
void mt_symbols_lock_all(void);
void mt_symbols_unlock_all(void);
/* Calls fn(arg) on the symbolizer's own deep stack (libdw needs far more than a small
 * thread has), or on the caller's where there is none; the symbols' lock held. */
void mt_symbols_run_deep_locked(void (*fn)(void *), void *arg);

#endif /* MT_SYMBOLIZE_H */
