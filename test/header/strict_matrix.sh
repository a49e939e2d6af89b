# strict_matrix.sh - sourced by the header tests: compiles a source under the strict flags
# real projects use, in every dialect, tracking on and off, with the header included first,
# last or force-included. Each compile must succeed and print nothing; failures are counted
# in $fails. Needs TOP (the source tree).
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

# strict_c SRC: gcc and clang, C89 to gnu17, flag off and on, the three inclusions
strict_c() {
    for cc in gcc clang; do
        for std in "-std=c89 -pedantic-errors" "-std=c99 -pedantic-errors" \
            "-std=c11 -pedantic-errors" "-std=gnu17"; do
            for flag in "" "-DMEMORY_CONTROL_ON"; do
                for where in "-DINCLUDE_FIRST" "-DINCLUDE_LAST" "-include memtrack.h"; do
                    # shellcheck disable=SC2086
                    try $cc $std $strict $c_only $flag $where $inc "$1"
                done
            done
        done
    done
}

# strict_cxx SRC [WHERE...]: g++ and clang++, C++98 to C++20, flag off and on, the C source
# compiled as C++ with each inclusion given (default: force-included)
strict_cxx() {
    local src=$1
    shift
    local wheres=("$@")
    [ ${#wheres[@]} -gt 0 ] || wheres=("-include memtrack.h")
    for cxx in g++ clang++; do
        for std in -std=c++98 -std=c++11 -std=c++17 -std=c++20; do
            for flag in "" "-DMEMORY_CONTROL_ON"; do
                for where in "${wheres[@]}"; do
                    # shellcheck disable=SC2086
                    try $cxx $std -pedantic-errors $strict $flag $where $inc -x c++ "$src"
                done
            done
        done
    done
}
