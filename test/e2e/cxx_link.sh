# cxx_link.sh - the C++ operators live in libmemtrack for C and C++ programs alike, and C
# programs do not pay for them: libmemtrack.so needs neither libstdc++ nor libdw, a C
# program links it (shared, or static without pulling the operators in) and runs without
# the C++ runtime; `pkg-config --libs memtrack` builds C and C++ programs, even a C++
# program that never calls new itself; and a C program that dlopen()s a C++ library gets
# that library's new and delete tracked.
set -u
lib="$TOP/build"
dir="$OUT/cxx_link"
mkdir -p "$dir"
status=0
fail() { echo "FAIL: $*"; status=1; }

needed=$(readelf -d "$lib/libmemtrack.so" | grep NEEDED)
echo "$needed" | grep -q 'libstdc++' && fail "libmemtrack.so needs libstdc++"
echo "$needed" | grep -q 'libdw' && fail "libmemtrack.so needs libdw (it is dlopen()ed)"

# A C program, shared: strict about undefined symbols in the libraries it links.
$CC -std=c11 -g -DMEMORY_CONTROL_ON -I"$TOP/include" -include memtrack.h cxx_link/plain.c \
    -o "$dir/plain" -L"$lib" -lmemtrack -Wl,-rpath,"$lib" -Wl,--no-allow-shlib-undefined \
    || fail "C program does not link libmemtrack.so"
ldd "$dir/plain" | grep -q 'libstdc++' && fail "the C program loads libstdc++"
"$dir/plain" 2>"$dir/plain.err"
grep -q 'cxx_link/plain.c:7 in main() by strdup' "$dir/plain.err" || fail "C program (shared): no report"

# A C program, static: the operators' object stays out.
$CC -std=c11 -g -DMEMORY_CONTROL_ON -I"$TOP/include" -include memtrack.h cxx_link/plain.c \
    -o "$dir/plain-static" "$lib/libmemtrack.a" -ldl -pthread || fail "C program does not link libmemtrack.a"
nm "$dir/plain-static" | grep -q '_Znwm' && fail "libmemtrack.a gave a C program operator new"
ldd "$dir/plain-static" | grep -q 'libstdc++' && fail "the static C program loads libstdc++"
"$dir/plain-static" 2>"$dir/plain-static.err"
grep -q 'cxx_link/plain.c:7 in main() by strdup' "$dir/plain-static.err" || fail "C program (static): no report"

# pkg-config, for C and C++.
export PKG_CONFIG_PATH="$lib/pkgconfig"
# shellcheck disable=SC2046
$CC -g -DMEMORY_CONTROL_ON -include memtrack.h $(pkg-config --cflags memtrack) cxx_link/plain.c \
    -o "$dir/plain-pc" $(pkg-config --libs memtrack) || fail "pkg-config: C build"
# shellcheck disable=SC2046
$CXX -g -DMEMORY_CONTROL_ON -include memtrack.h $(pkg-config --cflags memtrack) cxx_link/leaky.cpp \
    -o "$dir/leaky-pc" $(pkg-config --libs memtrack) || fail "pkg-config: C++ build"
"$dir/leaky-pc" 2>"$dir/leaky-pc.err"
grep -q 'cxx_link/leaky.cpp:6 in main() by new' "$dir/leaky-pc.err" || fail "pkg-config: C++ leak not reported"

# A C++ program that never calls new itself still links libmemtrack (ld --as-needed would
# drop it): the header references it, and the standard library's news are tracked.
# shellcheck disable=SC2046
$CXX -g -DMEMORY_CONTROL_ON -include memtrack.h $(pkg-config --cflags memtrack) \
    cxx_link/only_library.cpp -o "$dir/only-library" -Wl,--as-needed $(pkg-config --libs memtrack) \
    || fail "only_library build"
readelf -d "$dir/only-library" | grep -q 'libmemtrack' || fail "--as-needed dropped libmemtrack"
MEMTRACK_OPTIONS=verbose=1 "$dir/only-library" >/dev/null 2>"$dir/only-library.err"
grep -Eq 'no leaks, no errors \([1-9][0-9]* allocations' "$dir/only-library.err" ||
    fail "the standard library's news are not tracked"

# A C program (no C++ runtime at start) loading a C++ library.
$CXX -g -O0 -fPIC -shared cxx_link/plugin.cpp -o "$dir/libplugin.so" || fail "plugin build"
$CC -g -DMEMORY_CONTROL_ON -I"$TOP/include" -include memtrack.h cxx_link/host.c -o "$dir/host" \
    -L"$lib" -lmemtrack -Wl,-rpath,"$lib" -ldl || fail "host build"
ldd "$dir/host" | grep -q 'libstdc++' && fail "the host loads libstdc++ at start"
"$dir/host" "$dir/libplugin.so" >"$dir/host.out" 2>"$dir/host.err" || fail "host exit status $?"
grep -q 'plugin_work: 11' "$dir/host.out" || fail "plugin did not work"
# (plugin_leak only returns what it makes: the leak is the host's line that dropped it)
grep -q '32 bytes in 1 block at cxx_link/host.c:19 in main() by new\[\]' "$dir/host.err" \
    || fail "the plugin's leak is not reported"
grep -q 'shown at their callers: plugin_leak() (cxx_link/plugin.cpp:23,' "$dir/host.err" \
    || fail "the plugin's allocation wrapper is not named"
grep -q 'leaked in 1 block' "$dir/host.err" || fail "the plugin's freed blocks are reported"

for f in plain plain-static leaky-pc only-library host; do
    [ $status = 0 ] || { echo "--- $f:"; cat "$dir/$f.err" 2>/dev/null; }
done
exit $status
