/* Bare metal: allocating from an interrupt handler. The SysTick timer's handler allocates
 * and frees while main allocates and frees in a loop; the program's critical section
 * (memtrack_set_lock_hooks: PRIMASK saved, interrupts masked) keeps each from finding the
 * tracker half way through a call of the other, so no record is lost: the counts are
 * exact, every guard is intact, and the one block the handler leaves is the one leak,
 * named in the handler. (Without the hooks the handler may find a lock of the tracker
 * held by main and wait for it forever.) Sequence numbers depend on where the ticks fall,
 * so the report lists none. That block is still reachable: tick_block holds it.
 * platform-targets: cortexm
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u) /* SysTick control and status */
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u) /* reload value */
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u) /* current value */

#define TICKS 100   /* the handler's allocations */
#define LOOPS 3000  /* main's */
#define BURST 16    /* main's peak, above anything the two reach together */

static volatile unsigned ticks;
static char *volatile tick_block;

void SysTick_Handler(void)
{
    if (ticks == TICKS) /* a tick pended as the timer stopped */
        return;
    char *p = malloc(24); /* the last one is never freed */
    if (p == NULL)
        _exit(5);
    memset(p, 't', 24);
    free(tick_block); /* the previous tick's */
    tick_block = p;
    if (++ticks == TICKS)
        SYST_CSR = 0; /* the timer stops */
}

static void mask(void *ctx)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    *(uint32_t *)ctx = primask;
}

static void unmask(void *ctx)
{
    __asm__ volatile("msr primask, %0" ::"r"(*(uint32_t *)ctx) : "memory");
}

int main(void)
{
    static uint32_t saved_primask;
    memtrack_set_options("report_seqs=0");
    if (memtrack_set_lock_hooks(mask, unmask, &saved_primask) != 1)
        _exit(2);
    char *burst[BURST];
    for (int i = 0; i < BURST; i++)
        burst[i] = malloc(64);
    for (int i = 0; i < BURST; i++)
        free(burst[i]);

    SYST_RVR = 4000; /* a tick every 4000 cycles of the processor's clock */
    SYST_CVR = 0;
    SYST_CSR = 7; /* the processor's clock, the interrupt, enabled */
    unsigned during = 0;
    for (int i = 0; i < LOOPS; i++) {
        char *q = malloc(40);
        if (q == NULL)
            _exit(3);
        memset(q, 'm', 40);
        free(q);
        during = ticks;
    }
    while (ticks < TICKS) /* the rest of the ticks */
        __asm__ volatile("wfi");
    if (during == 0) /* no tick fell among main's allocations: the test proved nothing */
        _exit(4);

    memtrack_stats_t st;
    memtrack_stats(&st);
    if (st.total_blocks != BURST + LOOPS + TICKS || st.frees != BURST + LOOPS + TICKS - 1 ||
        st.current_blocks != 1 || st.current_bytes != 24 || memtrack_check() != 0)
        _exit(6);
    return 0;
}
