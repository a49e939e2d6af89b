# pool_header.sh - the pool, arena and register API of memtrack.h compiles silently under
# the strict flags of header_strict.sh (every dialect, tracking on and off, included first,
# last or force-included), and the program runs the same tracked and untracked.
set -eu
src=../header/uses_pools.c
inc="-I$TOP/include"
strict="-Werror -Wall -Wextra -Wconversion -Wsign-conversion -Wshadow -Wundef -Wunused-macros \
 -Wredundant-decls -Wcast-qual -Wwrite-strings"
c_only="-Wc++-compat -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition \
 -Wdeclaration-after-statement -Wnested-externs"
fails=0
try() { # try COMPILER ARGS... : compile to an object, silently
    if ! out=$("$@" -c -o /dev/null 2>&1) || [ -n "$out" ]; then
        echo "NOT SILENT: $*"; echo "$out" | head -20; fails=$((fails + 1))
    fi
}
for cc in gcc clang; do
    for std in "-std=c89 -pedantic-errors" "-std=c99 -pedantic-errors" "-std=c11 -pedantic-errors" "-std=gnu17"; do
        for flag in "" "-DMEMORY_CONTROL_ON"; do
            for where in "-DINCLUDE_FIRST" "-DINCLUDE_LAST" "-include memtrack.h"; do
                # shellcheck disable=SC2086
                try $cc $std $strict $c_only $flag $where $inc $src
            done
        done
    done
done
for cxx in g++ clang++; do
    for std in -std=c++98 -std=c++11 -std=c++17 -std=c++20; do
        for flag in "" "-DMEMORY_CONTROL_ON"; do
            # shellcheck disable=SC2086
            try $cxx $std -pedantic-errors $strict $flag -include memtrack.h $inc -x c++ $src
        done
    done
done
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
