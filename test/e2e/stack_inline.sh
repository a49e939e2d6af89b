# stack_inline.sh - a site inside a function the compiler inlined shows the functions it was
# inlined into, each at the line of the inlined call, then the real callers below them (as
# addr2line -i and AddressSanitizer do). The library (stack_inline-untracked.c) is built
# without memtrack at -O2, its helpers always inlined; the program links libmemtrack, so
# track_all sites the library's blocks by return address.
# - new_node() makes two blocks, so it is no allocation wrapper: each of its three inlined
#   copies is its own group (leaks are grouped by site and stack, and the three stacks read
#   differently), under new_node's line, "inlined into" its parser's line. On main they
#   printed the same and were one group, with no parser named.
# - lib_malloc() only allocates: the wrapper rule sees through its inlined copies to the
#   functions they were inlined into, as through a real call.
# With frame pointers and the fast unwinder, and without them and unwind=exact, with gcc and
# clang, the report is stack_inline.expected.
set -u
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
status=0
dir="$OUT/stack_inline"
mkdir -p "$dir"
for compiler in gcc clang; do
    command -v $compiler >/dev/null 2>&1 || { echo "missing $compiler"; status=1; continue; }
    for variant in fp nofp; do
        name="$compiler-$variant"
        flags="-fno-omit-frame-pointer" unwind=fast
        [ $variant = nofp ] && flags="-fomit-frame-pointer" unwind=exact
        lib="$dir/$name/libstack_inline-untracked.so"
        mkdir -p "$dir/$name"
        if ! $compiler -std=gnu11 -g -O2 $flags -fPIC -shared stack_inline-untracked.c -o "$lib" \
            2>"$dir/$name.build" ||
            ! gcc -std=gnu11 -g -O0 -DMEMORY_CONTROL_ON -I"$TOP/include" -include memtrack.h \
                stack_inline.c -o "$dir/$name/stack_inline" -L"$dir/$name" \
                -lstack_inline-untracked -Wl,-rpath,"$dir/$name" -L"$TOP/build" -lmemtrack \
                -Wl,-rpath,"$TOP/build" 2>>"$dir/$name.build"; then
            echo "FAIL $name: build"; cat "$dir/$name.build"; status=1; continue
        fi
        (cd "$dir/$name" && MEMTRACK_OPTIONS=unwind=$unwind ./stack_inline 2>"../$name.err")
        normalize "$OUT" <"$dir/$name.err" >"$dir/$name.norm"
        if diff -u stack_inline.expected "$dir/$name.norm"; then
            echo "ok   $name unwind=$unwind"
        else
            echo "FAIL $name unwind=$unwind"; status=1
        fi
    done
done
exit $status
