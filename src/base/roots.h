/* roots.h - where a program keeps the pointers that hold its blocks: the roots of the leak
 * scan (api/reach.c), found on each platform its own way.
 *
 * Linux (roots_linux.c): every loaded module's writable data (dl_iterate_phdr's writable
 * PT_LOAD segments, less the part made read-only after relocation), the calling thread's
 * thread-local storage, its stack from the tracker's entry point up, with the registers the
 * entry point saved there; the other live threads' stacks (/proc/self/task), from the
 * stack pointer of a thread blocked in a system call (/proc/self/task/TID/syscall, with the
 * argument registers as values), whole for a thread running in user code; glibc keeps a
 * thread's static thread-local storage at the top of its stack. Other threads are not
 * stopped: what one of them changes while the scan runs may be missed, and a pointer it
 * keeps only in a register other than a system call's arguments is not seen. And the
 * writable anonymous memory the program mapped for itself (base/mapped.h).
 * Windows (roots_windows.c): the writable sections of every module and, for each thread,
 * its context (registers) and its stack from its stack pointer up.
 * Bare metal (roots_bare.c): .data and .bss by the linker's symbols and the one stack.
 * Everywhere the tracker's own data (base/own_data.h) and its mappings are left out.
 */
#ifndef MT_ROOTS_H
#define MT_ROOTS_H

#include "base/own_data.h"

typedef enum mt_root_kind {
    MT_ROOT_DATA,      /* a module's writable data: .data, .bss */
    MT_ROOT_TLS,       /* thread-local storage */
    MT_ROOT_STACK,     /* a thread's stack */
    MT_ROOT_REGISTERS, /* a thread's registers: values the roots keep (mt_roots_t.values) */
    MT_ROOT_PROGRAM,   /* memory the program registered (memtrack_register_root) */
    MT_ROOT_MAPPED,    /* memory the program mapped for itself (base/mapped.h) */
} mt_root_kind_t;

/* One range of roots, read through the kernel (it may go away while it is read). */
typedef struct mt_root {
    uintptr_t start, end;
    mt_root_kind_t kind;
    unsigned thread; /* the tracker's number of the thread (0: unknown) */
    bool whole;      /* a stack read whole: its stack pointer was not known */
    uint32_t index;  /* MT_ROOT_PROGRAM: which registered root */
} mt_root_t;

/* A frame of the calling thread's stack: its words are [start, end), and pc is a return
 * address into its function (the call it is in), which names it. The last frame a walk
 * could tell keeps the rest of the stack, which it could not follow. */
typedef struct mt_stack_frame {
    uintptr_t start, end;
    void *pc;
} mt_stack_frame_t;

#define MT_ROOT_FRAMES_MAX 64u

typedef struct mt_roots {
    mt_root_t *list; /* sorted by start */
    size_t n, cap;
    uintptr_t *values; /* register values (MT_ROOT_REGISTERS ranges point here) */
    size_t nvalues, values_cap;
    mt_stack_frame_t frames[MT_ROOT_FRAMES_MAX]; /* the calling thread's, innermost first */
    size_t nframes;
    unsigned threads_unread; /* live threads whose stack could not be found */
} mt_roots_t;

/* Finds the roots. The calling thread's stack is read from stack_from up (the caller's
 * entry point's stack pointer: below it lies the tracker's own work), less the frames of the
 * C library and the loader when its frames can be told (frame: that entry point's frame
 * pointer, for frame records; NULL: none): their words are stale ones of calls that
 * returned (at exit, called from the C library's exit(), those of main once it returned).
 * At exit (at_exit), a stack whose frames cannot be told is not read, for that reason.
 * Returns false when there is no memory for them. Takes no tracker lock but the threads'
 * list's. */
bool mt_roots_collect(mt_roots_t *r, uintptr_t stack_from, void *frame, bool at_exit);
/* Adds the memory the program mapped for itself (MT_ROOT_MAPPED: base/roots_mapped.c), after
 * the stacks. Linux only. */
bool mt_roots_add_mapped(mt_roots_t *r);
/* Adds a range of kind MT_ROOT_PROGRAM (registered roots, api/reach.c). */
bool mt_roots_add_program(mt_roots_t *r, uintptr_t start, uintptr_t end, uint32_t index);
void mt_roots_free(mt_roots_t *r);
/* The root range holding addr, or NULL. */
const mt_root_t *mt_roots_find(const mt_roots_t *r, uintptr_t addr);

/* Whether [addr, addr + n) may be read at all: false for device memory on bare metal (the
 * kernel refuses unreadable memory elsewhere). */
bool mt_memory_may_read(uintptr_t addr, size_t n);

/* A thread's first event (records/stats.c): notes where its stack is and its copy of the
 * tracker's thread-local data, for a scan another thread runs. */
void mt_roots_thread_seen(unsigned number);
/* Around fork: the list of threads seen (its lock). */
void mt_roots_lock_all(void);
void mt_roots_unlock_all(void);

/* ---- roots.c: shared by the platforms' files --------------------------------------- */
/* Adds [start, end) of a kind, less every span in `holes` (sorted or not). */
bool mt_roots_add(mt_roots_t *r, uintptr_t start, uintptr_t end, mt_root_kind_t kind,
                  unsigned thread, const mt_span_t *holes, size_t nholes);
/* Adds register values of a thread, as one range. */
bool mt_roots_add_values(mt_roots_t *r, const uintptr_t *values, size_t n, unsigned thread);
/* Sorts the list (after the values' array stopped moving). */
void mt_roots_finish(mt_roots_t *r);
/* The calling thread's frames, from the frame record at frame up to stack_end (x86 and
 * x86-64 frame records; elsewhere none). */
void mt_roots_walk_frames(mt_roots_t *r, void *frame, uintptr_t stack_from, uintptr_t stack_end);

#endif /* MT_ROOTS_H */
