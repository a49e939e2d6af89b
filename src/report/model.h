/* model.h - the report model: everything one report says, whatever form it takes, and the
 * renderers that turn it into text, JSON, SARIF and HTML.
 *
 * libmemtrack builds the model from its live blocks, error log and timeline (report.c);
 * the memtrack-report tool (tools/) builds the same model by reading a JSON report back.
 * Both then call the same renderers, so a report rendered again from its JSON is the
 * report the program wrote. Every string in the model is borrowed: the library points
 * into its site table, the loader's symbol tables and its scratch mapping, the tool into
 * its parsed JSON; a model lives only as long as what it points to.
 *
 * This header and the files it declares (buf.c, render_*.c) use no other part of the
 * library: the tool compiles them on their own. Renderers never allocate.
 */
#ifndef MT_MODEL_H
#define MT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memtrack.h" /* memtrack_stats_t */
#include "base/buf.h"

/* ----------------------------------------------------------------------------------
 * The model.
 * ---------------------------------------------------------------------------------- */

/* Version of the JSON report's layout (tools/report.schema.json): raised on any change
 * a reader could notice. 2: errors' pointer, offset, what; not_printed; unwritten.
 * 3: places' call stacks, allocation wrappers. 4: inlined places and frames. 5: the
 * allocations made to fail on purpose (injected), leaks' classes and holders, the
 * compilation directory of places and frames whose file is relative, the stacks' notes. */
#define MT_REPORT_FORMAT_VERSION 5

/* A return address in code the compiler inlined stands for several functions, each shown
 * as a frame: the inlined one, then the functions it was inlined into. A stack of depth
 * return addresses has room for depth + MT_REPORT_INLINE_FRAMES such extra frames; the
 * return addresses themselves keep their frames. */
#define MT_REPORT_INLINE_FRAMES 8
#define MT_REPORT_STACK_ROOM(depth) (2 * (depth) + MT_REPORT_INLINE_FRAMES)

/* The most frames a place's stack and the most wrappers a report may hold: the bounds the
 * schema states and the report tool enforces, so a report read back can never ask for more
 * memory than these (whatever it claims). The library's stacks stay within them (64 return
 * addresses at most, with their inlined functions). */
#define MT_REPORT_MAX_FRAMES MT_REPORT_STACK_ROOM(64)
#define MT_REPORT_MAX_WRAPPERS 256

/* One caller in a call stack: a return address and what the debug information says of it. */
typedef struct mt_frame {
    uint64_t pc;        /* the return address */
    const char *func;   /* function (or nearest symbol), or NULL */
    const char *file;   /* source file, or NULL without line information */
    const char *dir;    /* the directory a relative file is relative to: its unit's
                           compilation directory (DW_AT_comp_dir); NULL when not known */
    long line;          /* 0 when unknown */
    const char *module; /* shared object holding it when not the program, or NULL */
    uint64_t offset;    /* pc minus the address of func, when there is no file; with no func
                         * either (the crash report), pc minus the module's load address */
    bool inlined;       /* its code was inlined into the next frame's function, at the next
                           frame's line (no call: the two share pc) */
} mt_frame_t;

/* The callers of a place, innermost first: frames[0] called the place's function (or, when
 * the place is inlined, holds its code inlined). The
 * place itself is not repeated, nor the system's frames below the program's last one
 * (the C library's start-up code). nframes 0: no stack (stack=0, or the place is main). */
typedef struct mt_stack {
    const mt_frame_t *frames;
    size_t nframes;
} mt_stack_t;

/* A place in the program: where a block was made or released, or where an error was seen. */
typedef struct mt_place {
    const char *kind;   /* what happened there: "malloc", "free", "check", "exit"...; NULL: none */
    int kind_id;        /* the same as a number (records/kinds.h); MT_KIND_NONE when NULL */
    const char *file;   /* source file as the compiler named it, or NULL */
    const char *dir;    /* the directory a relative file is relative to (the compilation
                           directory), or NULL when not known (then the run's directory) */
    long line;          /* its line, 0 when unknown */
    const char *func;   /* function (for address-only sites: the nearest symbol), or NULL */
    const char *owner;  /* pool, arena or registrar name, or NULL */
    const char *module; /* program or shared library holding an address-only site, or NULL */
    uint64_t pc;        /* return address of an address-only site, else 0 */
    uint64_t offset;    /* pc minus the address of func, for address-only sites */
    mt_stack_t stack;   /* who called it (option stack) */
    bool inlined;       /* its code was inlined into stack.frames[0]'s function, at that
                           frame's line (then never without a stack) */
} mt_place_t;

/* How a live block is held, as Valgrind's memcheck tells it (the leak scan, api/reach.c).
 * X(id, name in JSON, name in text, what the text says of the class). In the order the
 * report lists them, lost first (blocks not scanned are of no class). */
#define MT_LEAK_CLASS_LIST(X)                                                                      \
    X(UNCLASSIFIED, "", "", "not scanned")                                                         \
    X(LOST, "lost", "lost", "nothing points at them")                                              \
    X(INDIRECT, "indirect", "indirectly lost", "only lost blocks point at them")                   \
    X(POSSIBLE, "possible", "possibly lost", "only pointers into their middle")                    \
    X(REACHABLE, "reachable", "still reachable", "the program still points at them")
typedef enum {
#define MT_LEAK_CLASS_ENUM(id, json, text, why) MT_LEAK_##id,
    MT_LEAK_CLASS_LIST(MT_LEAK_CLASS_ENUM)
#undef MT_LEAK_CLASS_ENUM
        MT_LEAK_CLASS_COUNT
} mt_leak_class_t;
extern const char *const mt_leak_class_json[MT_LEAK_CLASS_COUNT];
extern const char *const mt_leak_class_text[MT_LEAK_CLASS_COUNT];
extern const char *const mt_leak_class_why[MT_LEAK_CLASS_COUNT];
/* The class named so in JSON, or MT_LEAK_UNCLASSIFIED. */
mt_leak_class_t mt_leak_class_named(const char *json);

/* What holds a live block, by the root its chain of pointers starts at. X(id, JSON name). */
#define MT_HOLDER_LIST(X)                                                                          \
    X(NONE, "")                                                                                    \
    X(GLOBAL, "global")             /* a variable other files see */                               \
    X(STATIC, "static")             /* a file's or a function's static variable */                 \
    X(DATA, "data")                 /* a module's data with no variable known there */             \
    X(THREAD_LOCAL, "thread_local") /* a thread's thread-local storage */                          \
    X(STACK, "stack")               /* a thread's stack; func: the frame, when known */            \
    X(REGISTER, "register")         /* a thread's registers */                                     \
    X(ROOT, "root")                 /* memory the program registered: file:line, where */          \
    X(LOST, "lost")                 /* a lost block (indirectly lost ones) */                      \
    X(MAPPED, "mapped")             /* memory the program mapped for itself (mmap) */
typedef enum {
#define MT_HOLDER_ENUM(id, json) MT_HOLDER_##id,
    MT_HOLDER_LIST(MT_HOLDER_ENUM)
#undef MT_HOLDER_ENUM
        MT_HOLDER_COUNT
} mt_holder_kind_t;
extern const char *const mt_holder_json[MT_HOLDER_COUNT];
mt_holder_kind_t mt_holder_named(const char *json);

/* The blocks a holder reaches a leak through, by sequence number: the first ones and the
 * last ones of a longer chain (length says how many there are in all). */
#define MT_HOLDER_CHAIN_MAX 8u

typedef struct mt_holder {
    mt_holder_kind_t kind; /* MT_HOLDER_NONE: nothing holds it (lost, or not scanned) */
    const char *name;      /* the variable, or NULL */
    const char *func;      /* a stack frame's function; a static variable's, when it is
                              declared in one */
    const char *file;      /* where the variable is declared, the line the frame is at, or
                              where the root was registered; NULL: not known */
    long line;
    const char *module; /* DATA: the module whose data it is */
    uint64_t thread;    /* THREAD_LOCAL, STACK, REGISTER: the thread (0: not known) */
    uint64_t offset;    /* a possibly lost block: the pointer is this many bytes into it */
    uint64_t chain[MT_HOLDER_CHAIN_MAX]; /* the blocks between, root side first, ending at the
                                            group's first block (none: held directly) */
    unsigned nchain;
    uint64_t chain_length; /* blocks in the whole chain (>= nchain) */
} mt_holder_t;

/* Blocks still live, grouped by the place that made them (and, once scanned, by how they
 * are held and what holds them). */
typedef struct mt_leak_site {
    uint32_t site; /* library: a representative site id; 0 in the tool */
    mt_place_t where;
    uint64_t bytes;
    uint64_t blocks;
    uint64_t seqs[16]; /* smallest sequence numbers, ascending */
    unsigned nseqs;
    mt_leak_class_t leak_class;
    const mt_holder_t *held; /* what holds its first block (smallest sequence number); NULL:
                                nothing, or not scanned (a pointer: most sites have none, and
                                a site is small on bare metal's budget) */
} mt_leak_site_t;

/* One heap error as logged when it was found. */
typedef struct mt_report_error {
    const char *kind; /* "overrun", "underrun"... */
    int kind_id;      /* the same as a number (errors/words.h) */
    uint64_t addr;    /* the block (or pointer) involved */
    uint64_t size;    /* the block's requested size */
    uint64_t seq;     /* the block's sequence number, 0 if none */
    uint64_t thread;  /* the thread that allocated it, 0 if unknown */
    mt_place_t alloc; /* where the block was allocated */
    mt_place_t freed; /* where it was released, when that matters (kind NULL: none) */
    mt_place_t found; /* where the error was found */
    uint64_t changed; /* bytes found changed */
    uint64_t spans;   /* overrun: blocks after this one whose guards it reached too */
    uint64_t extent;  /* bytes past the end / before the start reached; write after free:
                         one past the last changed byte */
    uint64_t pointer; /* invalid free: the pointer the program passed (0: none) */
    int64_t offset;   /* write after free: the first changed byte; invalid free inside a
                         block: the pointer minus the block's start (negative: before it);
                         pool and arena errors: where, from the block's start */
    const char *what; /* invalid free: what the pointer is ("a stack address"...), or NULL */
    int what_id;      /* the same as a number (errors/words.h); MT_POINTER_COUNT when NULL */

    /* A fault at a page guard: "read", "write" or "read or write", the access being
     * `found` and where it fell `offset`; NULL for the other errors. */
    const char *access;
    /* The line that made the block itself, before the allocation wrappers it was made in
     * were seen through: what option page_guard_site names (messages only; NULL in a
     * report read back). */
    const char *made_file;
    long made_line;
} mt_report_error_t;

/* Messages the option max_messages kept from being printed, by kind of error and place. */
typedef struct mt_not_printed {
    const char *kind;
    mt_place_t found;
    uint64_t count;
} mt_not_printed_t;

/* Bytes never written before free (still the new-block fill), by allocation site. */
typedef struct mt_unwritten {
    mt_place_t where;
    uint64_t blocks, bytes, unwritten;
} mt_unwritten_t;

/* Allocations made to fail on purpose (options fail_*), by the place of the call that got
 * NULL (and its stack), in the order of their first failure. */
typedef struct mt_injected_site {
    mt_place_t where;
    uint64_t failures;
    uint64_t bytes;    /* what those calls asked for */
    uint64_t nths[16]; /* the first failures' numbers among the allocations counted,
                          ascending: MEMTRACK_OPTIONS=fail_nth=N fails one again */
    unsigned nnths;
} mt_injected_site_t;

typedef struct mt_injected {
    bool armed;          /* a fail_ option was set; nothing below is meaningful otherwise */
    uint64_t counted;    /* allocations counted, as fail_nth numbers them */
    uint64_t failed;     /* of those, failed on purpose (the sites list the first ones) */
    uint64_t windows;    /* memtrack_fail_begin() calls */
    uint64_t in_windows; /* allocations counted inside those windows */
    uint64_t seed;       /* fail_rate's seed, to run it again (0: no fail_rate) */
    mt_injected_site_t *sites;
    size_t nsites;
} mt_injected_t;

typedef struct mt_name_count {
    const char *name;
    uint64_t count;
} mt_name_count_t;

/* Live bytes and blocks after `event` allocations and frees, `usec` after start. */
typedef struct mt_sample {
    uint64_t event, bytes, blocks, usec;
} mt_sample_t;

/* Leaks left out of the list and counted apart. */
typedef struct mt_apart {
    uint64_t bytes, blocks, sites;
} mt_apart_t;

/* A function seen as an allocation wrapper: leaks made inside it are shown at its callers. */
typedef struct mt_wrapper {
    mt_frame_t fn; /* its name, and its file and line where the site inside it is */
    bool detected; /* found by the rule (report.c), not named by option alloc_fn */
} mt_wrapper_t;

/* A suppression rule and the leaks it left out. */
typedef struct mt_rule_hits {
    const char *rule; /* as written in the file: "function:cache_*" */
    mt_apart_t hits;
} mt_rule_hits_t;

/* An option in effect. type: 'b' boolean (value "0"/"1"), 'n' number, 's' text. */
typedef struct mt_option_value {
    const char *name;
    const char *value;
    char type;
} mt_option_value_t;

typedef enum {
    MT_WHEN_EXIT,  /* the exit-time report: live blocks are leaks */
    MT_WHEN_NOW,   /* memtrack_report(): live blocks */
    MT_WHEN_SINCE, /* memtrack_report_since(mark): blocks made since the mark, still live */
    MT_WHEN_LOST,  /* memtrack_check_leaks(): lost blocks now */
} mt_when_t;

/* The tracker's own memory ran out (bare metal's static buffer, MEMTRACK_STATIC_MEMORY):
 * blocks handed out untracked, the buffer's size and about what it wants (size 0: it
 * never ran out). */
typedef struct mt_shortage {
    uint64_t blocks, bytes, size, wanted;
} mt_shortage_t;

/* Blocks made inside system libraries (the C library's stdio buffers, the loader's, the C++
 * runtime's), counted apart from the program's statistics. */
typedef struct mt_system_counts {
    uint64_t total_bytes, total_blocks; /* made */
    uint64_t freed_bytes, frees;        /* released */
} mt_system_counts_t;

/* Where the exit report's text went, and whether it got there: memtrack run shows a report
 * from its JSON when the program's own could not reach the user (a program that closed its
 * standard error before exit, as every coreutils program does). */
typedef struct mt_printed {
    const char *to;         /* "stderr", "stdout", "file" (option report), "none" (quiet);
                               NULL: not known (not an exit report, or an older one) */
    bool written;           /* every line of it was written (or there was none to write) */
    const char *error;      /* why not, when not: the failed write's words ("Bad file
                               descriptor"), or NULL */
    uint64_t error_number;  /* its errno (EBADF: the stream was closed), 0 when written */
    uint64_t device, inode; /* the stream's file (fstat), 0 when it had none */
} mt_printed_t;

/* Why a report is partial (mt_report_t.partial), in the words every form shows. */
#define MT_PARTIAL_OUT_OF_MEMORY "out of memory, so not grouped by site"
#define MT_PARTIAL_OUT_OF_MEMORY_UNSUPPRESSED                                                      \
    "out of memory, so not grouped by site, nor suppressed"

typedef struct mt_report {
    const char *version; /* memtrack's version that wrote it */
    /* NULL for a whole report; else why it is not whole (MT_PARTIAL_*): the leaks are totals
     * without sites, the errors counted without their list (the exit report when its
     * working memory could not be had: report/write.c). */
    const char *partial;
    mt_printed_t printed; /* the exit report: where its text went (its JSON says) */
    const char *program;
    uint64_t pid;
    const char *cwd; /* the directory relative source paths start from, or NULL */
    mt_when_t when;
    uint64_t since;                   /* the checkpoint mark (MT_WHEN_SINCE) */
    memtrack_stats_t stats;           /* the program's own blocks */
    mt_system_counts_t system_counts; /* the system libraries' (all 0 without track_all) */
    uint64_t threads_running;         /* other threads still tracking when the report was taken */
    mt_shortage_t shortage;

    bool leak_check;         /* false: leaks were not looked for (option leaks=0) */
    bool classified;         /* the leak scan told how each live block is held */
    bool lost_only;          /* only lost and indirectly lost blocks are listed (leaks=lost) */
    mt_apart_t held_apart;   /* lost_only: the blocks still held, counted apart */
    uint64_t threads_unread; /* live threads whose stack the scan could not read */
    mt_leak_site_t *sites;   /* sorted, lost first, then largest first */
    size_t nsites;
    uint64_t leaked_bytes, leaked_blocks;
    size_t list_sites;     /* how many sites the text lists (option report_sites) */
    mt_apart_t suppressed; /* left out by suppression rules */
    mt_rule_hits_t *rules;
    size_t nrules;
    mt_apart_t system;      /* made inside system libraries (track_all) */
    mt_wrapper_t *wrappers; /* functions whose sites are shown at their callers */
    size_t nwrappers;
    /* What the call stacks could not show: allocations made on a stack that was not walked
     * (a coroutine's, switched to by code of the program's own), and whether every stack
     * stops at its first frame, as in code built without frame pointers. */
    uint64_t stacks_unwalked;
    bool stacks_no_frame_pointers;
    const char *stacks_unavailable; /* why this target keeps no stacks at all, or NULL */

    size_t errors;                /* errors found */
    mt_name_count_t *error_kinds; /* errors found by kind, kinds with none left out */
    size_t nerror_kinds;
    mt_report_error_t *error_list; /* the first errors found, in order */
    size_t nerror_list;
    mt_not_printed_t *not_printed; /* most first */
    size_t nnot_printed;
    uint64_t max_messages; /* the cap they passed */

    bool unwritten_check;      /* option unwritten: bytes never written were counted */
    mt_unwritten_t *unwritten; /* sites with freed blocks, most unwritten bytes first */
    size_t nunwritten;

    mt_sample_t *samples; /* the timeline, by event */
    size_t nsamples;
    mt_sample_t peak; /* when live bytes were highest (event 0: not known) */

    mt_injected_t injected; /* allocations made to fail on purpose */

    mt_option_value_t *options;
    size_t noptions;

    void *scratch; /* library: the mapping behind the arrays */
    size_t scratch_size;
    void *groups; /* library: the mapping behind sites, when the scan grouped them */
    size_t groups_size;
} mt_report_t;

/* ----------------------------------------------------------------------------------
 * render_*.c: the forms of a report. Each writes the whole report to b and flushes it.
 * ---------------------------------------------------------------------------------- */
#define MT_TEXT_SILENT_WHEN_CLEAN 1u /* print nothing for a report without leaks or errors */
#define MT_TEXT_LIST_ERRORS 2u       /* list each logged error (they were printed when found) */
void mt_render_text(const mt_report_t *r, mt_buf_t *b, unsigned flags);
/* "peak 4192 bytes in 9 blocks; 11 allocations (4220 bytes), 6 frees, 0 failed": the
 * counters' line of the text report. blocks_then: the blocks live when the bytes peaked
 * (mt_report_blocks_at_peak); when the most blocks were live at another moment the line
 * says both ("peak 60960 bytes in 73 blocks, 153 blocks at most"). */
void mt_buf_stats_line(mt_buf_t *b, const memtrack_stats_t *st, uint64_t blocks_then,
                       const mt_system_counts_t *system);
/* The blocks live when live bytes peaked: the peak's sample when it is that peak, else
 * (no byte was ever live, or an older report) the most blocks live at once. */
uint64_t mt_report_blocks_at_peak(const mt_report_t *r);
/* The lines that say the tracker's memory ran out, what was not tracked and what to give
 * it; nothing when it never ran out. */
void mt_buf_shortage_lines(mt_buf_t *b, const mt_shortage_t *s);
/* Makes p name frame f's code (file, line, function, module, address); its kind, owner
 * and stack are left as they are. (Inline: the errors' words use it, a layer below.) */
static inline void mt_place_at_frame(mt_place_t *p, const mt_frame_t *f)
{
    p->file = f->file;
    p->dir = f->dir;
    p->line = f->line;
    p->func = f->func;
    p->module = f->module;
    p->pc = f->pc;
    p->offset = f->offset;
    p->inlined = f->inlined;
}
/* True when the report has leaks or errors to show. */
bool mt_report_found(const mt_report_t *r);
void mt_render_json(const mt_report_t *r, mt_buf_t *b);
void mt_render_sarif(const mt_report_t *r, mt_buf_t *b);
/* The renderers' pieces, for other documents that name places (the fail sweep's summary):
 * a place as the JSON report writes it (null for no place); a SARIF location object (with
 * a message and an id when given: NULL, -1 for none); the "stacks" and "codeFlows" members
 * of a SARIF result for the callers of places[0..n) (at most 8), each said to be its
 * message's followed by the place (nothing for places without callers); cwd: the directory
 * SRCROOT names (relative files are resolved from it), or NULL. */
void mt_render_json_place(mt_buf_t *b, const mt_place_t *p);
void mt_render_sarif_location(mt_buf_t *b, const mt_place_t *p, const char *message, int id,
                              const char *cwd);
void mt_render_sarif_stacks(mt_buf_t *b, const mt_place_t *const *places,
                            const char *const *messages, size_t n, const char *cwd);
void mt_render_html(const mt_report_t *r, mt_buf_t *b);
/* The HTML report's section of live bytes over the run (render_html_timeline.c). */
void mt_render_html_timeline(const mt_report_t *r, mt_buf_t *b);

#endif /* MT_MODEL_H */
