#!/bin/bash
# many_sites.sh - what a tracked malloc+free pair costs when a program allocates at many
# places: a churn whose every allocation is one of N calls in a switch (each a site of its
# own, a place and a stack), for N = 1, 64 and 200, in instructions a pair by callgrind. It
# measures the per-thread site and stack caches under a program's hot sites
# (tools/bench/README.md, "Many hot sites"). Run after `make`.
#
#   tools/bench/many_sites.sh [N...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/build/bench}
mkdir -p "$out"
src="$out/many_sites.c"
{
    echo '#include <stdlib.h>'
    echo 'static void *slots[4096];'
    echo 'static unsigned state = 1;'
    echo 'static unsigned next(void) { state = state * 1103515245u + 12345u; return state >> 8; }'
    echo '/* One step: a random block freed, a new one made at place k (sizes differ per place,'
    echo ' * so the compiler keeps every call apart). */'
    echo 'static void step(unsigned k) {'
    echo '    unsigned i = next() % 4096;'
    echo '    free(slots[i]);'
    echo '    switch (k) {'
    for ((k = 0; k < 256; k++)); do
        echo "    case $k: slots[i] = malloc($((16 + k % 64))); break;"
    done
    echo '    }'
    echo '}'
    echo 'int main(int argc, char **argv) {'
    echo '    unsigned places = (unsigned)atoi(argv[1]);'
    echo '    long ops = atol(argv[2]);'
    echo '    for (long j = 0; j < ops; j++) step(next() % places);'
    echo '    for (int i = 0; i < 4096; i++) free(slots[i]);'
    echo '    return 0;'
    echo '}'
} >"$src"
cc -std=c11 -O2 -g -fno-omit-frame-pointer -DMEMORY_CONTROL_ON -I"$top/include" -include memtrack.h \
    "$src" -o "$out/many-sites" -L"$top/build" -lmemtrack -Wl,-rpath,"$top/build"
collect() { # collect PLACES OPS -> instructions of the whole run
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$out/many-sites" "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : //p'
}
[ $# -gt 0 ] || set -- 1 64 200
for n in "$@"; do
    [ "$n" -ge 1 ] && [ "$n" -le 256 ] || { echo "many_sites: N from 1 to 256" >&2; exit 2; }
    a=$(collect "$n" 20000)
    b=$(collect "$n" 120000)
    echo "sites=$n instructions_per_pair=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", (b - a) / 100000}')"
done
