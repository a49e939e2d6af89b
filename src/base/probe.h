/* probe.h - reading memory that may not be there, without a fault.
 */
#ifndef MT_PROBE_H
#define MT_PROBE_H

#include "base/platform.h"

/* Copies n bytes at addr to out through the kernel; false when any of them cannot be read
 * (nothing faults). errno is left as it was. */
bool mt_probe_read(uintptr_t addr, void *out, size_t n);

#endif /* MT_PROBE_H */
