# stack_other_stacks.sh - allocations made on stacks other than the thread's own are walked
# (issue 25, item 16): on a coroutine's stack (makecontext, swapcontext), and in a signal
# handler running on the alternate signal stack, whose walk goes on into the interrupted
# code's frames. Each leak's stack names the functions that led to it (there was none). A
# coroutine switched to by code of the program's own (not swapcontext: here its stack is made
# up by hand) is not walked, and the report says how many allocations that left without
# callers.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir stack_other_stacks
cat >prog.c <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static void *kept[4];
static ucontext_t main_context, coroutine_context;

static __attribute__((noinline)) void coroutine_helper(void)
{
    kept[0] = malloc(11);
}

static void coroutine_body(void)
{
    coroutine_helper();
    swapcontext(&coroutine_context, &main_context);
}

static __attribute__((noinline)) void handler_helper(void)
{
    kept[1] = malloc(22);
}

static void on_signal(int sig)
{
    (void)sig;
    handler_helper();
}

/* (syscall() keeps the frame register: the signal interrupts code whose frame leads to main) */
static __attribute__((noinline)) void raise_it(void)
{
    syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
}

int main(void)
{
    static char coroutine_stack[64 * 1024], signal_stack[64 * 1024];
    free(malloc(1)); /* the main thread's stack is known from here */
    getcontext(&coroutine_context);
    coroutine_context.uc_stack.ss_sp = coroutine_stack;
    coroutine_context.uc_stack.ss_size = sizeof coroutine_stack;
    coroutine_context.uc_link = &main_context;
    makecontext(&coroutine_context, coroutine_body, 0);
    swapcontext(&main_context, &coroutine_context);

    stack_t ss = {.ss_sp = signal_stack, .ss_size = sizeof signal_stack};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    raise_it();
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
status=0
./prog >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status"; cat err.txt; exit 1; }
# the coroutine's leak: its stack names the coroutine's own frames
grep -A1 '11 bytes in 1 block at prog.c:[0-9]* in coroutine_helper()' err.txt |
    grep -q 'from prog.c:[0-9]* in coroutine_body()' || { cat err.txt; exit 1; }
# the handler's: its own frame, and through the signal into the code it interrupted
grep -A4 '22 bytes in 1 block at prog.c:[0-9]* in handler_helper()' err.txt >handler.txt
grep -q 'from prog.c:[0-9]* in on_signal()' handler.txt &&
    grep -q 'from prog.c:[0-9]* in main()' handler.txt || { cat err.txt; exit 1; }
if grep -q 'stacks: .* made on a stack memtrack was not told of' err.txt; then
    cat err.txt; exit 1
fi
[ "$(uname -m)" = x86_64 ] || { echo "ok: both walked (the rest is x86-64 assembly)"; exit 0; }
cat >own.c <<'C'
#include <stdlib.h>

void run_on_stack(void (*fn)(void), void *top);
__asm__(".text\n.globl run_on_stack\n"
        "run_on_stack:\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  mov %rsi, %rsp\n"
        "  call *%rdi\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  ret\n");

static void *kept;

static void on_its_stack(void)
{
    kept = malloc(33);
}

int main(void)
{
    static char stack[64 * 1024] __attribute__((aligned(16)));
    free(malloc(1));
    run_on_stack(on_its_stack, stack + sizeof stack);
    return 0;
}
C
"$M" cc -g -O0 own.c -o own
status=0
./own >own.out 2>own.err || status=$?
[ $status = 0 ] || { echo "status $status"; cat own.err; exit 1; }
grep -q 'memtrack:   stacks: 1 allocation was made on a stack memtrack was not told of' own.err ||
    { cat own.err; exit 1; }
echo "ok: both walked, and the stack nobody told of said"
