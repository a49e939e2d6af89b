# cxx_headers.sh - memtrack.h force-included before the whole C++ standard library
# compiles silently with g++ and clang++, C++98 to C++2b, -Wall -Wextra -pedantic-errors
# -Werror; so do the opt-in macros after it; and without MEMORY_CONTROL_ON the header
# changes nothing: the object code is byte for byte the same.
set -u
inc="-I$TOP/include"
strict="-Wall -Wextra -Werror -pedantic-errors"
status=0
for compiler in g++ clang++; do
    for std in c++98 c++11 c++14 c++17 c++20 c++2b; do
        for src in all macros; do
            # shellcheck disable=SC2086
            if ! $compiler -std=$std $strict $inc -DMEMORY_CONTROL_ON -include memtrack.h \
                    -fsyntax-only cxx_headers/$src.cpp 2>"$OUT/cxx_headers.err"; then
                echo "FAIL $compiler -std=$std $src.cpp"; head -20 "$OUT/cxx_headers.err"; status=1
            fi
        done
    done
    echo "checked $compiler"
    # Without MEMORY_CONTROL_ON: the same object code with and without the header.
    # shellcheck disable=SC2086
    $compiler -std=c++17 -O2 -g0 $inc -c cxx_headers/all.cpp -o "$OUT/cxx_headers-plain.o" &&
        $compiler -std=c++17 -O2 -g0 $inc -include memtrack.h -c cxx_headers/all.cpp \
            -o "$OUT/cxx_headers-header.o" || status=1
    if ! cmp -s "$OUT/cxx_headers-plain.o" "$OUT/cxx_headers-header.o"; then
        echo "FAIL $compiler: memtrack.h without MEMORY_CONTROL_ON changed the object code"; status=1
    fi
done
exit $status
