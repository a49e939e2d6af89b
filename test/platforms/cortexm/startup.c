/* startup.c - what each test program of test/platforms has besides itself on the cortexm
 * target (qemu's mps2-an385, semihosting): the vector table, the tracker's static memory,
 * and the program's name for reports and its options, from the command line qemu passes by
 * semihosting (qemu.sh). The reset handler clears the bss, opens newlib's
 * semihosting streams (rdimon: its _write sends memtrack's output to qemu's stderr), runs
 * the constructors, main and exit (atexit handlers, then destructors: the exit report). It
 * is ours, not rdimon's _start, which moves the stack to where qemu guesses RAM ends.
 *
 * A start-up to copy for another board (with link.ld beside it; README "Platforms"): keep
 * the vector table, the bss clearing, the constructors and exit's order, and
 * MEMTRACK_STATIC_MEMORY; replace semihosting (initialise_monitor_handles, the command
 * line) with the board's _write for the output. Nothing else is needed: no rename() (a
 * report file is written in place), no CMSIS stack symbols.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <memtrack.h>

/* The tracker's memory: 32 KiB for every program here (the largest, pool_errors, needs
 * 23,712 bytes at its peak, its report included); weak, so a program that shows another
 * size defines its own with MEMTRACK_STATIC_MEMORY (exhausted.c). */
#define TEST_STATIC_MEMORY (32 * 1024)
__attribute__((weak, aligned(16))) unsigned char memtrack_static_memory[TEST_STATIC_MEMORY];
__attribute__((weak)) const size_t memtrack_static_memory_size = TEST_STATIC_MEMORY;

extern char _estack[], __bss_start__[], __bss_end__[];
extern void initialise_monitor_handles(void);
extern void __libc_init_array(void), __libc_fini_array(void);
int main(int argc, char **argv);
void Reset_Handler(void);
/* Semihosting: one call into the debugger (qemu), operation in r0, argument block in r1. */
static int semihost(int op, void *arg)
{
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* A fault ends the run with status 3 (SYS_EXIT_EXTENDED), so run.sh sees it. */
static void fault(void)
{
    static const char msg[] = "cortexm: fault\n";
    size_t block[3] = {2, (size_t)msg, sizeof msg - 1}; /* SYS_WRITE to stderr's handle */
    (void)block;
    size_t exit_block[2] = {0x20026, 3}; /* ADP_Stopped_ApplicationExit, status 3 */
    semihost(0x20, exit_block);
    for (;;)
        ;
}

/* The SysTick timer's handler: a program that starts the timer defines it (irq_alloc.c). */
void SysTick_Handler(void) __attribute__((weak, alias("fault")));

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(size_t)_estack, Reset_Handler, fault, fault, fault, fault, fault, 0, 0, 0, 0,
    fault, fault, 0, fault, SysTick_Handler,
};

/* The command line qemu passes by semihosting (SYS_GET_CMDLINE): the program's name, then
 * MEMTRACK_OPTIONS if qemu.sh was given any (bare metal has no environment of its own). */
static void read_command_line(void)
{
    static char line[1024];
    size_t block[2] = {(size_t)line, sizeof line - 1};
    if (semihost(0x15, block) != 0)
        return;
    line[block[1]] = '\0';
    char *space = strchr(line, ' ');
    if (space != NULL) {
        *space = '\0';
        setenv("MEMTRACK_OPTIONS", space + 1, 1);
    }
    memtrack_program_name = line;
}

void Reset_Handler(void)
{
    memset(__bss_start__, 0, (size_t)(__bss_end__ - __bss_start__));
    initialise_monitor_handles();
    read_command_line(); /* before the library starts: it reads the options then */
    atexit(__libc_fini_array); /* destructors after the program's handlers, as crt0 does */
    __libc_init_array();
    exit(main(0, NULL));
}
