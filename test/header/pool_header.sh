# pool_header.sh - the pool, arena and register API of memtrack.h compiles silently under
# the strict flags of header_strict.sh (every dialect, tracking on and off, included first,
# last or force-included), and the program runs the same tracked and untracked.
set -eu
src=./uses_pools.c
# shellcheck source=./strict_matrix.sh
. ./strict_matrix.sh
strict_c $src
strict_cxx $src
# It runs: the same output tracked (C89) and untracked, and the tracked run is clean.
want="1 0 0 8 12 0 6 1024"
for flag in "" "-DMEMORY_CONTROL_ON"; do
    # shellcheck disable=SC2086
    gcc -std=c89 $flag -include memtrack.h $inc $src -o "$OUT/uses_pools" \
        -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build"
    got=$("$OUT/uses_pools" 2>"$OUT/uses_pools.err")
    [ "$got" = "$want" ] || { echo "run ${flag:-untracked}: '$got', expected '$want'"; fails=$((fails + 1)); }
    [ ! -s "$OUT/uses_pools.err" ] || { echo "run ${flag:-untracked} printed:"; cat "$OUT/uses_pools.err"; fails=$((fails + 1)); }
done
echo "pool_header: $fails failures"
[ $fails = 0 ]
