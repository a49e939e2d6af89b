# header_strict.sh - memtrack.h compiles silently under the strict flags real projects use:
# every dialect, included first, last or force-included, tracking on and off.
set -eu
src=.
# shellcheck source=./strict_matrix.sh
. ./strict_matrix.sh
strict_c $src/uses_everything.c
strict_cxx $src/uses_everything.c "-DINCLUDE_FIRST" "-DINCLUDE_LAST" "-include memtrack.h"
for cxx in g++ clang++; do # a C++ source using the standard library after the header
    for std in -std=c++11 -std=c++17 -std=c++20; do
        for flag in "" "-DMEMORY_CONTROL_ON"; do
            # shellcheck disable=SC2086
            try $cxx $std $strict $flag -include memtrack.h $inc $src/uses_everything.cpp
        done
    done
done
# and the C program really runs tracked: every block released, no damage
gcc -std=c89 -DMEMORY_CONTROL_ON -include memtrack.h $inc $src/uses_everything.c -o "$OUT/uses_everything" \
    -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build"
[ "$("$OUT/uses_everything")" = "1 0" ] || { echo "tracked run printed the wrong result"; fails=$((fails + 1)); }
echo "header_strict: $fails failures"
[ $fails = 0 ]
