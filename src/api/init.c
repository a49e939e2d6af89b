/* init.c - starting the tracker (the options, once, at the first call of any entry point
 * or at load time) and the block layout, frozen when the first block is made. The rest of
 * the process's lifecycle (fork, the crash handler, the exit report) is lifecycle.c's.
 */
#define _GNU_SOURCE
#include <unistd.h>

#include "api/api.h"
#include "base/output.h"

atomic_int mt_state;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_once_fn(void)
{
    mt_busy++;
    mt_options_init();
    (void)mt_libc_usable_size(NULL); /* resolve it now, not inside a lock */
    if (mt_opt.verbose) {
        mt_buf_t b;
        mt_buf_init(&b, mt_out_fd());
        mt_buf_line(&b);
        mt_buf_str(&b, "tracking ");
        mt_buf_str(&b, mt_program_name());
        mt_buf_str(&b, " (pid ");
        mt_buf_u64(&b, (uint64_t)getpid());
        mt_buf_str(&b, "), guard ");
        mt_buf_u64(&b, mt_opt.guard);
        mt_buf_str(&b, " bytes\n");
        mt_buf_flush(&b);
    }
    mt_busy--;
    atomic_store(&mt_state, 1);
}

void mt_init(void)
{
    if (MT_LIKELY(atomic_load_explicit(&mt_state, memory_order_acquire) != 0))
        return;
    pthread_once(&init_once, init_once_fn);
}

void mt_freeze_layout_slow(void)
{
    mt_init();
    mt_layout_freeze();
}

size_t mt_guard_size(void)
{
    mt_freeze_layout();
    return mt_guard_bytes;
}
