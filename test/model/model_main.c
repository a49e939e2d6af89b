/* model_main.c - runs the model on pseudo-random bytes.
 *
 *   model [STEPS [SEED [QUARANTINE]]]   defaults: 200000 steps, seed 1, quarantine 16384
 *
 * A failure prints the step, the operation, and what memtrack reported against what the
 * model expected; rerun with the same seed to see it again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model.h"

static uint64_t state;

static uint8_t next_byte(void)
{
    state ^= state << 13; /* xorshift64 */
    state ^= state >> 7;
    state ^= state << 17;
    return (uint8_t)(state >> 32);
}

int main(int argc, char **argv)
{
    unsigned long steps = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
    unsigned long seed = argc > 2 ? strtoul(argv[2], NULL, 10) : 1;
    size_t quarantine = argc > 3 ? strtoul(argv[3], NULL, 10) : 16384;
    uint8_t chunk[64];
    state = seed * 0x9E3779B97F4A7C15ull + 1;
    model_init(quarantine);
    for (unsigned long i = 0; i < steps; i++) {
        for (size_t k = 0; k < sizeof chunk; k++)
            chunk[k] = next_byte();
        const uint8_t *data = chunk;
        size_t len = sizeof chunk;
        if (model_step(&data, &len)) {
            fprintf(stderr, "model: FAILED at seed %lu quarantine %zu\n", seed, quarantine);
            return 1;
        }
    }
    if (model_finish()) {
        fprintf(stderr, "model: FAILED at the end, seed %lu\n", seed);
        return 1;
    }
    model_summary();
    return 0;
}
