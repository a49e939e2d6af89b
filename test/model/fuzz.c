/* fuzz.c - the model under libFuzzer: each input is a sequence of operations; the model
 * state (and memtrack's) carries over from input to input, live blocks are freed at the
 * end of each. A difference between what memtrack reported and what the model expected
 * aborts, and libFuzzer keeps the input. Built by `make fuzz` with clang. */
#include <stdint.h>
#include <stdlib.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int started;
    if (!started) {
        model_init(8192);
        started = 1;
    }
    while (size > 0)
        if (model_step(&data, &size))
            abort();
    if (model_finish())
        abort();
    return 0;
}
