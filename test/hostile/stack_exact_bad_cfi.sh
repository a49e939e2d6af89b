# stack_exact_bad_cfi.sh - unwind=exact does not crash the program on frames whose unwind
# information is wrong (issue 25, item 5): a function in assembly says, in its CFI, that its
# caller's frame lies 256 MiB up the stack, where nothing is, and calls malloc. libgcc's
# unwinder, which believes the tables, faults there: the walk ends (that allocation gets no
# stack), the program runs on (it died of SIGSEGV), and a fault of the program's own is still
# the program's (its SIGSEGV handler, installed before, gets it).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir stack_exact_bad_cfi
[ "$(uname -m)" = x86_64 ] || { echo "skipped: x86-64 assembly"; exit 0; }
cat >prog.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *malloc_with_bad_cfi(size_t n);
__asm__(".text\n.globl malloc_with_bad_cfi\n"
        "malloc_with_bad_cfi:\n"
        "  .cfi_startproc\n"
        "  sub $8, %rsp\n"
        "  .cfi_def_cfa_offset 0x10000000\n" /* wrong: the caller's frame is 16 bytes up */
        "  call malloc@PLT\n"
        "  add $8, %rsp\n"
        "  ret\n"
        "  .cfi_endproc\n");

static volatile sig_atomic_t phase;

static void on_segv(int sig)
{
    (void)sig;
    static const char walks[] = "the handler got a fault of the walks\n";
    static const char own[] = "the program's own handler got its fault\n";
    if (phase == 1)
        (void)!write(1, walks, sizeof walks - 1);
    else
        (void)!write(1, own, sizeof own - 1);
    _exit(phase == 1 ? 3 : 0);
}

int main(void)
{
    signal(SIGSEGV, on_segv);
    phase = 1;
    void *p = malloc_with_bad_cfi(40);
    void *q = malloc_with_bad_cfi(50);
    printf("survived %d\n", p != NULL && q != NULL);
    fflush(stdout);
    phase = 2;
    *(volatile int *)16 = 1; /* the program's own fault: its handler's */
    return 1;
}
C
"$M" cc -g -O0 prog.c -o prog
status=0
MEMTRACK_OPTIONS=unwind=exact ./prog >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status, expected 0"; cat out.txt err.txt; exit 1; }
grep -q 'survived 1' out.txt && grep -q "the program's own handler got its fault" out.txt ||
    { cat out.txt err.txt; exit 1; }
echo "ok: the walk ended, the program ran on"
