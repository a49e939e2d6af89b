/* wrapper.c - allocation wrappers: the functions a leak or an error is seen through, to the
 * line a user would fix.
 *
 * Real programs funnel their allocations through functions of their own (xmalloc, a
 * database's chain of public, internal and low-level mallocs, an interpreter's l_alloc, a
 * hook table's entry): every leak would be reported at the innermost one's line, which
 * tells nobody what to fix. records/place.c shows a place made inside a wrapper at the
 * wrapper's caller, and that caller's caller while it is a wrapper too. This file says
 * which functions are.
 *
 * A function is a wrapper when option alloc_fn names it (as Valgrind's --alloc-fn), when it
 * is code of the system's headers (a C++ container growing: the program's line that grew
 * it is the one to fix), or, with option wrappers (the default), by what its code is:
 *   - small: at most WRAPPER_MAX_BYTES of code (its inlined copy's, when it was inlined);
 *   - it allocates nowhere else: no call in its code reaches an allocation function (a
 *     release function, for a place that releases) but the one that led here;
 *   - for a place that makes a block, it returns a pointer (its type, from the debug
 *     information), or it reached the allocation by a jump (a tail call returns what the
 *     allocation returns, and leaves no frame: its caller is the next frame); for a place
 *     that releases one, it takes a pointer (it frees what its caller gives it).
 * A function that also grows an array (it returns nothing, or a count), one that makes two
 * blocks, or a bigger one (a hash insert that also links the entry in) keeps its own line,
 * with its stack below it. The answer depends on the code alone, never on how many
 * callers a run happened to see, so the same leak reads the same in every process of a
 * suite, and at every optimization level (a function's code is a few times bigger at -O0:
 * a wrapper stays well under the limit).
 *
 * Answers are kept by return address and function number (or source line, for a function
 * whose frame is absent), under the wrappers' lock, which is taken alone: the debug
 * information is read outside it. A function's answer at a return address is also kept in
 * the symbol cache (option symbol_cache), so that the next process of the same program
 * judges it without opening libdw.
 */
#define _GNU_SOURCE
#include <string.h>

#include "base/code_calls.h"
#include "base/memory.h"
#include "base/options.h"
#include "base/symbolize.h"
#include "records/wrapper.h"

#define WRAPPER_MAX_BYTES 256u

/* ---- option alloc_fn ---------------------------------------------------------------------- */

/* '*' matches any run of characters, everything else itself. */
static bool glob_matches(const char *pattern, size_t plen, const char *name)
{
    size_t p = 0, star = (size_t)-1, resume = 0;
    const char *n = name;
    while (*n != '\0') {
        if (p < plen && pattern[p] == '*') {
            star = p++;
            resume = (size_t)(n - name);
        } else if (p < plen && pattern[p] == *n) {
            p++;
            n++;
        } else if (star != (size_t)-1) {
            p = star + 1;
            n = name + ++resume;
        } else {
            return false;
        }
    }
    while (p < plen && pattern[p] == '*')
        p++;
    return p == plen;
}

bool mt_alloc_fn_matches(const char *name)
{
    const char *list = mt_opt.alloc_fn;
    if (name == NULL || list == NULL || list[0] == '\0')
        return false;
    while (*list != '\0') { /* entries are kept separated by spaces (options.c) */
        size_t len = strcspn(list, " ");
        if (len > 0 && glob_matches(list, len, name))
            return true;
        list += len;
        while (*list == ' ')
            list++;
    }
    return false;
}

/* ---- the functions that make and release blocks, by name -------------------------------- */

static bool name_in(const char *name, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

/* memtrack's entry points that make and release owned blocks (memtrack_ left out), called
 * by name (MEMTRACK_NO_MACROS) or with _at (the macros). */
static const char *const owned_makers[] = {"pool_alloc", "pool_alloc_size", "arena_alloc",
                                           "arena_alloc_aligned", "register_alloc"};
static const char *const owned_releasers[] = {"pool_free", "register_free", "register_free_range"};

/* name is one of names, or one of them with _at after it. */
static bool owned_name(const char *name, const char *const *names, size_t n)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(names[i]);
        if (strncmp(name, names[i], k) == 0 && (len == k || strcmp(name + k, "_at") == 0))
            return true;
    }
    return false;
}

/* The C library's allocators, memtrack's entry points for them (the macros' _at, the
 * caller-site door's _caller) and C++'s operator new (mangled: _Znw..., _Zna...). */
static bool makes_blocks_name(const char *name)
{
    static const char *const names[] = {"malloc",   "calloc",  "realloc",       "reallocarray",
                                        "strdup",   "strndup", "aligned_alloc", "posix_memalign",
                                        "memalign", "valloc",  "pvalloc"};
    if (strncmp(name, "_Znw", 4) == 0 || strncmp(name, "_Zna", 4) == 0)
        return true;
    if (strncmp(name, "memtrack_", 9) == 0) {
        const char *rest = name + 9;
        size_t len = strlen(rest);
        size_t cut = len > 3 && strcmp(rest + len - 3, "_at") == 0       ? len - 3
                     : len > 7 && strcmp(rest + len - 7, "_caller") == 0 ? len - 7
                                                                         : 0;
        if (cut == 0)
            return owned_name(rest, owned_makers, sizeof owned_makers / sizeof owned_makers[0]);
        char base[32];
        if (cut >= sizeof base)
            return false;
        memcpy(base, rest, cut);
        base[cut] = '\0';
        return name_in(base, names, sizeof names / sizeof names[0]) ||
               name_in(base, owned_makers, sizeof owned_makers / sizeof owned_makers[0]);
    }
    return name_in(name, names, sizeof names / sizeof names[0]);
}

static bool releases_blocks_name(const char *name)
{
    if (strncmp(name, "memtrack_", 9) == 0 &&
        owned_name(name + 9, owned_releasers, sizeof owned_releasers / sizeof owned_releasers[0]))
        return true;
    return strcmp(name, "free") == 0 || strcmp(name, "memtrack_free_at") == 0 ||
           strcmp(name, "memtrack_free_caller") == 0 || strncmp(name, "_ZdlPv", 6) == 0 ||
           strncmp(name, "_ZdaPv", 6) == 0;
}

/* Pool objects, arena allocations and registered blocks are made and released as malloc'd
 * blocks are: an engine's Allocate and Free over a pool are wrappers as xmalloc is. */
static bool makes_blocks(mt_kind_t kind)
{
    return kind <= MT_KIND_REGISTERED;
}

static bool releases_blocks(mt_kind_t kind)
{
    return kind == MT_KIND_FREE || kind == MT_KIND_DELETE || kind == MT_KIND_DELETE_ARRAY ||
           kind == MT_KIND_POOL_FREE || kind == MT_KIND_UNREGISTER;
}

/* ---- the rule ------------------------------------------------------------------------------ */

/* Functions a release wrapper may call besides the release itself: ones that allocate and
 * release nothing, and those that do not return. */
static bool harmless_name(const char *name)
{
    static const char *const names[] = {"memset", "memcpy",        "memmove",
                                        "strlen", "abort",         "exit",
                                        "_exit",  "__assert_fail", "__stack_chk_fail"};
    return name_in(name, names, sizeof names / sizeof names[0]);
}

static bool rule_answer_at(uintptr_t at, unsigned level, bool making, bool absent,
                           const mt_function_ref_t *fn, unsigned depth);

/* What a function's calls reach (mt_code_calls), counted. */
typedef struct calls {
    bool making;     /* the family asked about: making blocks, or releasing them */
    unsigned depth;  /* of the rule asking about a function its function calls */
    unsigned family; /* calls to the family's functions, or to wrappers of the family */
    unsigned other;  /* calls to anything else */
} calls_t;

/* The deepest a function's callees are judged as wrappers themselves (a release wrapper
 * that calls another: db_free -> mem_free -> free). */
#define CALLEE_DEPTH 2u

static void count_call(void *ctx, uintptr_t target, const char *name)
{
    calls_t *c = ctx;
    if (name != NULL && (c->making ? makes_blocks_name(name) : releases_blocks_name(name))) {
        c->family++;
    } else if (name != NULL &&
               (harmless_name(name) || makes_blocks_name(name) || releases_blocks_name(name))) {
        /* neither counts: the other family's own functions (l_alloc frees and reallocs) */
    } else if (name == NULL) {
        /* A function of the program's own (or a byte that only looks like a call: then no
         * function starts there, and it is no call). */
        mt_function_code_t code;
        if (!mt_symbolize_function((void *)(target + 1), 0, &code) || code.start != target)
            return;
        mt_function_ref_t callee = {code.func, NULL, 0, (void *)(target + 1), 0, NULL};
        if (c->depth < CALLEE_DEPTH &&
            rule_answer_at(target, UINT32_MAX, c->making, false, &callee, c->depth + 1))
            c->family++;
        else
            c->other++;
    } else {
        c->other++;
    }
}

/* The rule for a function whose code is `code`; call_end: the return address of the call
 * that led to the block (0 for a function that jumped to it, tail, or one asked about as a
 * callee: then every call of the family counts). */
static bool rule_finds(const mt_function_code_t *code, uintptr_t call_end, bool tail, bool making,
                       unsigned depth)
{
    if (code->bytes == 0 || code->bytes > WRAPPER_MAX_BYTES)
        return false;
    if (making && !tail && code->returns != MT_RETURNS_POINTER)
        return false;
    if (!making && !code->takes_pointer) /* what it frees is what it was given */
        return false;
    calls_t c = {making, depth, 0, 0};
    if (!mt_code_calls(code->start, code->size, call_end, count_call, &c))
        return making; /* this processor's code is not read: the other tests stand alone */
    /* The one call that led here is left out (or, for a jump or a callee, counted). */
    unsigned allowed = call_end == 0 ? 1 : 0;
    if (c.family > allowed)
        return false;
    /* A release wrapper does nothing but release; a making one may also, say, report that
     * memory ran out. */
    return making || c.other == 0;
}

/* Answers kept: 1024 (bare metal: none, no debug information there). */
#define KEPT_BITS MT_SMALL(10u, 0u)
typedef struct kept {
    uintptr_t at;   /* the return address, or the site's file for an absent frame; 0: empty */
    unsigned level; /* the function number, or the source line */
    unsigned char making, absent, answer;
} kept_t;

static struct {
    pthread_mutex_t lock;
    kept_t *table; /* 1 << KEPT_BITS entries, made at the first answer */
    size_t used;
} kept_answers = {.lock = PTHREAD_MUTEX_INITIALIZER};

static kept_t *kept_slot_locked(uintptr_t at, unsigned level, bool making, bool absent)
{
    size_t size = (size_t)1 << KEPT_BITS, mask = size - 1;
    if (kept_answers.table == NULL)
        return NULL;
    uint64_t h =
        ((uint64_t)at ^ (uint64_t)level << 40 ^ (uint64_t)making << 62 ^ (uint64_t)absent << 63) *
        UINT64_C(0x9E3779B97F4A7C15);
    for (size_t i = (size_t)(h >> 40) & mask, n = 0; n < size; i = (i + 1) & mask, n++) {
        kept_t *k = &kept_answers.table[i];
        if (k->at == 0 ||
            (k->at == at && k->level == level && k->making == making && k->absent == absent))
            return k;
    }
    return NULL; /* full */
}

/* The kept answer (0 or 1), or -1 when there is none. */
static int kept_answer(uintptr_t at, unsigned level, bool making, bool absent)
{
    int answer = -1;
    pthread_mutex_lock(&kept_answers.lock);
    const kept_t *k = kept_slot_locked(at, level, making, absent);
    if (k != NULL && k->at != 0)
        answer = k->answer;
    pthread_mutex_unlock(&kept_answers.lock);
    return answer;
}

static void keep_answer(uintptr_t at, unsigned level, bool making, bool absent, bool answer)
{
    pthread_mutex_lock(&kept_answers.lock);
    if (kept_answers.table == NULL && KEPT_BITS > 0)
        kept_answers.table = mt_mem_calloc((size_t)1 << KEPT_BITS, sizeof(kept_t));
    kept_t *k = kept_slot_locked(at, level, making, absent);
    if (k != NULL && k->at == 0 && kept_answers.used + 1 < (size_t)1 << KEPT_BITS) {
        *k = (kept_t){at, level, making, absent, answer};
        kept_answers.used++;
    }
    pthread_mutex_unlock(&kept_answers.lock);
}

/* The rule's answer for the function fn, kept by (at, level): judged once. A callee (level
 * UINT32_MAX) is judged on its whole code. */
static bool rule_answer_at(uintptr_t at, unsigned level, bool making, bool absent,
                           const mt_function_ref_t *fn, unsigned depth)
{
    if (at == 0)
        return false;
    int answer = kept_answer(at, level, making, absent);
    if (answer >= 0)
        return answer != 0;
    bool callee = level == UINT32_MAX;
    /* A function at a return address: judged by an earlier process of the same program (the
     * symbol cache, by build id), whose answer is the same code's. */
    bool by_address = !absent && !callee;
    answer = by_address ? mt_symbols_wrapper_kept(fn->pc, fn->level, making) : -1;
    if (answer >= 0) {
        keep_answer(at, level, making, absent, answer != 0);
        return answer != 0;
    }
    mt_function_code_t code;
    bool found = absent ? mt_symbolize_source(fn->file, fn->line, fn->func, fn->module_hint, &code)
                        : mt_symbolize_function(fn->pc, callee ? 0 : fn->level, &code);
    bool wrapper =
        found && rule_finds(&code, absent || callee ? 0 : (uintptr_t)fn->pc, absent, making, depth);
    keep_answer(at, level, making, absent, wrapper);
    if (by_address && found)
        mt_symbols_keep_wrapper(fn->pc, fn->level, making, wrapper);
    return wrapper;
}

static bool rule_answer(const mt_function_ref_t *fn, bool making)
{
    bool absent = fn->pc == NULL;
    return rule_answer_at(absent ? (uintptr_t)fn->file : (uintptr_t)fn->pc,
                          absent ? (unsigned)fn->line : fn->level, making, absent, fn, 0);
}

/* Code from the system's headers (the C++ standard library's containers, inlined or
 * instantiated in the program): the line to fix is the program's own that called it. */
static bool in_system_header(const char *file)
{
    return file != NULL &&
           (strncmp(file, "/usr/include/", 13) == 0 || strncmp(file, "/usr/lib/", 9) == 0);
}

mt_through_t mt_wrapper_through(const mt_function_ref_t *fn, mt_kind_t kind)
{
    bool making = makes_blocks(kind);
    if (!making && !releases_blocks(kind))
        return MT_THROUGH_NONE;
    if (mt_alloc_fn_matches(fn->func))
        return MT_THROUGH_NAMED;
    if (in_system_header(fn->file))
        return MT_THROUGH_SYSTEM;
    if (mt_opt.wrappers && rule_answer(fn, making))
        return MT_THROUGH_RULE;
    return MT_THROUGH_NONE;
}
