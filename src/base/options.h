/* options.h - the one options table, X(name, type, default, help), and its parser.
 */
#ifndef MT_OPTIONS_H
#define MT_OPTIONS_H

#include "base/buf.h"
#include "base/platform.h"

/* Defaults that differ on bare metal (a microcontroller): no stacks, since no unwinder
 * works on Thumb code (frame pointers there are not a chain: base/unwind.c), and a
 * quarantine of 4 KiB, not 1 MiB, since it holds back the program's own heap (newlib's)
 * and the freed blocks' records in the tracker's static buffer. */
#define MT_STACK_DEFAULT MT_SMALL("32", "0")
#define MT_QUARANTINE_DEFAULT MT_SMALL("1m", "4k")

#define MT_OPTION_LIST(X)                                                                          \
    X(guard, SIZE, "16", "bytes of guard before and after each block; 0 turns guards off")         \
    X(report, STRING, "stderr",                                                                    \
      "where reports and messages go: stderr, stdout or a file path (%p is the pid; appended to)") \
    X(quiet, BOOL, "0", "print nothing: no report and no messages (exit status still tells)")      \
    X(verbose, BOOL, "0",                                                                          \
      "print a one-line summary for a clean run, and the options in effect at start")              \
    X(exitcode, INT, "-1",                                                                         \
      "exit status when leaks or errors were found; -1 leaves the program's status")               \
    X(leaks, STRING, "all",                                                                        \
      "leaks reported at exit: all (every live block), lost (nothing points at them), 0: none")    \
    X(report_sites, COUNT, "30", "leak sites listed in the report; the rest are summed")           \
    X(report_seqs, COUNT, "5", "sequence numbers listed per leak site")                            \
    X(max_messages, COUNT, "20",                                                                   \
      "messages printed per kind of error and site; the rest are counted")                         \
    X(json, STRING, "", "at exit, write the report as JSON to this file (%p is the pid)")          \
    X(sarif, STRING, "",                                                                           \
      "at exit, write leaks and errors as SARIF 2.1.0 to this file (%p is the pid)")               \
    X(html, STRING, "",                                                                            \
      "at exit, write the report as one self-contained HTML page (%p is the pid)")                 \
    X(suppressions, STRING, "",                                                                    \
      "file of rules (file:, function:, site:, module:) whose leaks are left out")                 \
    X(timeline, BOOL, "1", "sample live bytes and blocks over the run for the report")             \
    X(track_all, BOOL, "1",                                                                        \
      "also track blocks made by code built without memtrack (0: only the macros' blocks)")        \
    X(system_leaks, BOOL, "0", "with track_all: also list blocks made inside system libraries")    \
    X(stack, COUNT, MT_STACK_DEFAULT,                                                              \
      "callers recorded per site after its allocation wrappers, innermost first (0: none; at "     \
      "most 64)")                                                                                  \
    X(unwind, STRING, "fast",                                                                      \
      "how stacks are taken: fast (frame pointers) or exact (DWARF unwinder, slower)")             \
    X(alloc_fn, STRING, "",                                                                        \
      "a function that only wraps an allocator (* wildcards; repeatable): sites at its callers")   \
    X(wrappers, BOOL, "1",                                                                         \
      "see through allocation wrappers (small functions that return their one allocation)")        \
    X(track_programs, STRING, "",                                                                  \
      "with track_all: track only processes whose executable matches a glob (| between them)")     \
    X(track_pid, COUNT, "0", "with track_programs: this process is tracked whatever it runs")      \
    X(symbolize, BOOL, "1",                                                                        \
      "turn code addresses into file:line from the debug information (libdw)")                     \
    X(symbol_cache, STRING, "auto",                                                                \
      "directory where symbolized addresses are kept by build id, for the next process; auto: "    \
      "$XDG_CACHE_HOME/memtrack or ~/.cache/memtrack; empty: none")                                \
    /* catching heap corruption (quarantine.c, foreign.c, crash.c) */                              \
    X(quarantine, SIZE, MT_QUARANTINE_DEFAULT,                                                     \
      "bytes of freed blocks each heap shard keeps before giving them back; 0: none")              \
    X(fill_new, BOOL, "1",                                                                         \
      "fill new blocks (not calloc) with 0xCD, their first 64 KiB (all with unwritten=1)")         \
    X(fill_freed, BOOL, "1", "fill freed blocks with 0xDD and check them for writes after free")   \
    X(unwritten, BOOL, "0",                                                                        \
      "report per site the share of freed bytes never written (needs fill_new)")                   \
    X(realloc_moves, BOOL, "1",                                                                    \
      "realloc always moves the block (0: resize in place, or let the C library grow it)")         \
    /* page guards (checks/page_guard.c): blocks against an inaccessible page */                   \
    X(page_guard_rate, COUNT, "10000",                                                             \
      "page-guard one allocation in N, at random, from a bounded pool (0: none)")                  \
    X(page_guard_slots, COUNT, "16",                                                               \
      "sampled blocks page-guarded at a time, live or freed (1 to 1048576)")                       \
    X(page_guard_site, STRING, "",                                                                 \
      "FILE:LINE: page-guard every block made there (repeatable; FILE ends the path)")             \
    X(page_guard, STRING, "", "all: page-guard every block (Electric Fence mode, small programs)") \
    X(page_guard_side, STRING, "end", "end: an overrun faults at once; start: an underrun does")   \
    X(page_guard_stop, BOOL, "0",                                                                  \
      "at a page-guard fault: 0 reports it once and goes on; 1 then ends the program (SIGSEGV)")   \
    X(page_guard_seed, COUNT, "0", "seed of the page-guard sampling (0: a new one each run)")      \
    /* allocations made to fail on purpose (api/fail.c) */                                         \
    X(fail_nth, COUNT, "0", "make the program's Nth allocation fail (NULL, ENOMEM; 0: none)")      \
    X(fail_from, COUNT, "0", "make every allocation from the program's Nth on fail (0: none)")     \
    X(fail_rate, COUNT, "0", "make one allocation in N fail, at random (0: none)")                 \
    X(fail_seed, COUNT, "0", "seed of fail_rate (0: a new one each run, said in the report)")      \
    X(fail_site, STRING, "",                                                                       \
      "FILE:LINE: fail only allocations made there (repeatable; FILE ends the path)")              \
    X(fail_fn, STRING, "",                                                                         \
      "fail only allocations with a function matching this glob in their stack (repeatable)")      \
    X(fail_owner, STRING, "",                                                                      \
      "fail only allocations of pools and arenas whose name matches this glob (repeatable)")       \
    X(fail_window, BOOL, "0",                                                                      \
      "fail only between memtrack_fail_begin() and memtrack_fail_end(), counting only there")      \
    X(fail_count, BOOL, "0", "count the allocations as fail_nth numbers them, failing none")       \
    X(abort_on_error, BOOL, "0", "abort (core dump, debugger) right after the first error")        \
    X(break_on, COUNT, "0", "raise SIGTRAP when allocation number N is made (0: never)")           \
    X(check_every, COUNT, "0", "check every live block every N allocations and frees (0: never)")  \
    X(crash_report, BOOL, "1",                                                                     \
      "on SIGSEGV, SIGBUS or SIGABRT, print the heap's state before the default action")           \
    X(test_fail_storage, COUNT, "0",                                                               \
      "testing only: the Nth and later allocations of record storage fail (0: never)")             \
    X(help, BOOL, "0", "print every option with its default and meaning, then go on")

typedef enum { MT_OPT_BOOL, MT_OPT_INT, MT_OPT_SIZE, MT_OPT_COUNT, MT_OPT_STRING } mt_option_type_t;

/* A string option's room: 1024 bytes, 256 on bare metal (fourteen options have one). */
#define MT_OPTION_STRING_MAX MT_SMALL(1024, 256)

typedef struct mt_options {
#define MT_OPTION_FIELD_BOOL int
#define MT_OPTION_FIELD_INT long
#define MT_OPTION_FIELD_SIZE size_t
#define MT_OPTION_FIELD_COUNT size_t
#define MT_OPTION_FIELD_STRING const char *
#define MT_OPTION_FIELD(name, type, def, help) MT_OPTION_FIELD_##type name;
    MT_OPTION_LIST(MT_OPTION_FIELD)
#undef MT_OPTION_FIELD
} mt_options_t;

extern MT_HIDDEN mt_options_t mt_opt;
/* Read MEMTRACK_OPTIONS once (idempotent). Warnings go to stderr. */
void mt_options_init(void);
/* Parse "k=v:k=v" from `source` (a name used in warnings); returns bad entry count. */
int mt_options_parse(const char *text, const char *source);
void mt_options_print_help(void);
/* The options table, a line each (name, type, default, meaning), for help=1 and for
 * `memtrack --options`; prefixed: each line starts with "memtrack: ". */
void mt_options_write_table(mt_buf_t *b, bool prefixed);
/* The options in effect, for the report: count, name, type and value. */
size_t mt_option_count(void);
const char *mt_option_name(size_t i);
mt_option_type_t mt_option_type(size_t i);
void mt_buf_option_value(mt_buf_t *b, size_t i);
/* The rest of option i's row, for the manual page (tools/options_man.c): its default as
 * MEMTRACK_OPTIONS spells it ("" for none), its meaning, whether it is fixed once the first
 * block exists; and the word for a type ("bytes", "0|1"...), as `memtrack --options` has it. */
const char *mt_option_default(size_t i);
const char *mt_option_help(size_t i);
bool mt_option_fixed_at_first_block(size_t i);
const char *mt_option_type_word(mt_option_type_t type);

/* Option leaks: which live blocks the exit report lists and counts as found. */
typedef enum {
    MT_LEAKS_NONE, /* leaks=0: errors only */
    MT_LEAKS_ALL,  /* leaks=all (or 1): every live block, grouped by how it is held */
    MT_LEAKS_LOST, /* leaks=lost: only lost and indirectly lost blocks (LeakSanitizer's set) */
} mt_leaks_mode_t;
mt_leaks_mode_t mt_leaks_mode(void);
/* Set once the first block is made: options that shape blocks can no longer change. */
extern atomic_bool mt_options_frozen;
/* Raised each time option report or quiet changes: the output opens its stream anew. */
extern atomic_uint mt_output_generation;

#endif /* MT_OPTIONS_H */
