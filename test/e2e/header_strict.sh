# header_strict.sh - memtrack.h compiles silently under the strict flags real projects use:
# every dialect, included first, last or force-included, tracking on and off.
set -eu
src=../header
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
                try $cc $std $strict $c_only $flag $where $inc $src/uses_everything.c
            done
        done
    done
done
for cxx in g++ clang++; do
    for std in -std=c++98 -std=c++11 -std=c++17 -std=c++20; do
        for flag in "" "-DMEMORY_CONTROL_ON"; do
            for where in "-DINCLUDE_FIRST" "-DINCLUDE_LAST" "-include memtrack.h"; do
                # shellcheck disable=SC2086
                try $cxx $std -pedantic-errors $strict $flag $where $inc -x c++ $src/uses_everything.c
            done
            # shellcheck disable=SC2086
            [ "$std" = -std=c++98 ] || try $cxx $std $strict $flag -include memtrack.h $inc $src/uses_everything.cpp
        done
    done
done
# and the C program really runs tracked: every block released, no damage
gcc -std=c89 -DMEMORY_CONTROL_ON -include memtrack.h $inc $src/uses_everything.c -o "$OUT/uses_everything" \
    -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build"
[ "$("$OUT/uses_everything")" = "1 0" ] || { echo "tracked run printed the wrong result"; fails=$((fails + 1)); }
echo "header_strict: $fails failures"
[ $fails = 0 ]
