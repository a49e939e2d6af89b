/* code_calls.c - the calls a function's machine code makes, and the functions they reach:
 * the allocation-wrapper rule (records/wrapper.c) asks whether a small function allocates
 * anywhere but at the call that led to a block, and what else it calls.
 *
 * The code is read through the kernel (base/probe.c), as are the stubs and table slots it
 * goes through, so an address that is no code makes a system call fail, never a fault.
 * x86-64: every byte is a possible start of a call (E8 rel32, FF 15 through a table slot) or
 * of a jump out of the function (E9 rel32, FF 25: a tail call); no instruction lengths are
 * decoded, as a byte that only looks like a call leads to a target that is none of the
 * functions asked about (the rule asks by name, or about the code found there). A call through
 * the PLT reaches a stub, whose table slot holds the function once the loader has bound it
 * (a stub never called yet is known by its own address only). arm64: BL and B, and the
 * PLT's ADRP/LDR pair. Elsewhere nothing is known.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "base/code_calls.h"
#include "base/probe.h"

/* The most code read at once: the rule asks only about small functions. */
#define CODE_MAX 1024u

#if defined(__x86_64__) || defined(__aarch64__)
/* The name of the function that starts exactly at target (an exported symbol), or NULL. */
static const char *name_at(uintptr_t target)
{
    Dl_info info;
    if (target == 0 || dladdr((void *)target, &info) == 0 || info.dli_sname == NULL ||
        (uintptr_t)info.dli_saddr != target)
        return NULL;
    return info.dli_sname;
}

static uintptr_t read_word(uintptr_t addr)
{
    uintptr_t v = 0;
    return mt_probe_read(addr, &v, sizeof v) ? v : 0;
}
#endif

#if defined(__x86_64__)
static int32_t rel32(const unsigned char *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The function a call or jump to `target` reaches: itself, or through a PLT stub (jmp
 * *slot(%rip), after an endbr64 and a bnd prefix when the program has them), the function
 * its slot holds. */
static uintptr_t through_stub(uintptr_t target)
{
    unsigned char stub[16];
    if (!mt_probe_read(target, stub, sizeof stub))
        return 0;
    size_t at = 0;
    if (stub[0] == 0xF3 && stub[1] == 0x0F && stub[2] == 0x1E && stub[3] == 0xFA)
        at = 4; /* endbr64 */
    if (stub[at] == 0xF2)
        at++; /* bnd */
    if (stub[at] == 0xFF && stub[at + 1] == 0x25)
        return read_word(target + at + 6 + (uintptr_t)(intptr_t)rel32(stub + at + 2));
    return target;
}

bool mt_code_calls(uintptr_t start, size_t size, uintptr_t skip, mt_call_visit_fn visit, void *ctx)
{
    unsigned char code[CODE_MAX + 8];
    if (size == 0 || size > CODE_MAX || !mt_probe_read(start, code, size))
        return false;
    memset(code + size, 0, 8);
    for (size_t i = 0; i + 5 <= size; i++) {
        uintptr_t here = start + i, end = 0, target = 0;
        if (code[i] == 0xE8 || code[i] == 0xE9) {
            end = here + 5;
            target = end + (uintptr_t)(intptr_t)rel32(code + i + 1);
            if (code[i] == 0xE9 && target >= start && target < start + size)
                continue; /* a jump inside the function */
            target = through_stub(target);
        } else if (code[i] == 0xFF && (code[i + 1] == 0x15 || code[i + 1] == 0x25) &&
                   i + 6 <= size) {
            end = here + 6;
            target = read_word(end + (uintptr_t)(intptr_t)rel32(code + i + 2));
        } else {
            continue;
        }
        if (end == skip)
            continue;
        visit(ctx, target, name_at(target));
    }
    return true;
}

#elif defined(__aarch64__)
static uint32_t insn_at(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* A PLT stub: adrp x16, page; ldr x17, [x16, #off]; ... br x17: the function its slot holds. */
static uintptr_t through_stub(uintptr_t target)
{
    uint32_t stub[2];
    if (!mt_probe_read(target, stub, sizeof stub))
        return 0;
    if ((stub[0] & 0x9F00001Fu) != 0x90000010u || (stub[1] & 0xFFC003FFu) != 0xF9400211u)
        return target;
    int64_t page = (int64_t)(((stub[0] >> 5) & 0x7FFFFu) << 2 | ((stub[0] >> 29) & 3u));
    page = (page << 43) >> 43; /* 21 bits, signed */
    uintptr_t slot =
        (target & ~(uintptr_t)0xFFF) + (uintptr_t)(page * 4096) + (((stub[1] >> 10) & 0xFFFu) << 3);
    return read_word(slot);
}

bool mt_code_calls(uintptr_t start, size_t size, uintptr_t skip, mt_call_visit_fn visit, void *ctx)
{
    unsigned char code[CODE_MAX];
    if (size == 0 || size > CODE_MAX || (start & 3) != 0 || !mt_probe_read(start, code, size))
        return false;
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint32_t insn = insn_at(code + i);
        bool link = (insn & 0xFC000000u) == 0x94000000u;  /* BL */
        if (!link && (insn & 0xFC000000u) != 0x14000000u) /* B */
            continue;
        int64_t off = (int64_t)((insn & 0x03FFFFFFu) << 6) >> 4; /* imm26 * 4, signed */
        uintptr_t here = start + i, target = here + (uintptr_t)off;
        if (!link && target >= start && target < start + size)
            continue;
        if (here + 4 == skip)
            continue;
        target = through_stub(target);
        visit(ctx, target, name_at(target));
    }
    return true;
}

#else
bool mt_code_calls(uintptr_t start, size_t size, uintptr_t skip, mt_call_visit_fn visit, void *ctx)
{
    (void)start;
    (void)size;
    (void)skip;
    (void)visit;
    (void)ctx;
    return false;
}
#endif
