/* call_with_frame.h - for the stack walk's hostile tests (x86-64): malloc(n) called with the
 * frame register holding `frame`, as code built without frame pointers may leave it. */
#include <stddef.h>

void *call_malloc_with_frame(size_t n, void *frame);
__asm__(".text\n.globl call_malloc_with_frame\n"
        "call_malloc_with_frame:\n"
        "  push %rbp\n"
        "  mov %rsi, %rbp\n"
        "  call malloc@PLT\n"
        "  pop %rbp\n"
        "  ret\n");
