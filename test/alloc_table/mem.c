#include <stdlib.h>

#include "mem.h"

mem_t default_mem = {calloc, realloc, free};
