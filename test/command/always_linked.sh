# always_linked.sh - a program whose main only calls a library function that allocates and
# leaks is tracked, whatever the linker's --as-needed says (Debian's gcc passes it by
# default): libmemtrack stays in the link through memtrack cc, the pkg-config flags and the
# CMake target, and the leak is reported at main's call of the library's allocation wrapper,
# the library's line named as seen through, for a library built without memtrack and for one
# built with it. A program that loads
# libmemtrack without it being the process's allocator is told so, once, with the fix.
set -eu
mt="$TOP/memtrack"
work="$OUT/always_linked"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

cat >names.c <<'C'
#include <stdlib.h>
#include <string.h>

char *make_name(const char *s)
{
    char *p = malloc(strlen(s) + 1);
    if (p != NULL)
        strcpy(p, s);
    return p;
}
C
cat >main.c <<'C'
char *make_name(const char *s);

int main(void)
{
    return make_name("thin main") == 0;
}
C
# The compiler driver's own default, made explicit so the test does not depend on it.
as_needed=-Wl,--as-needed
cc -g -fPIC -shared names.c -o libplain.so
"$mt" cc -g -fPIC -shared names.c -o libtracked.so

reported_with_main() { # reported_with_main STDERR (CMake compiles by absolute paths)
    # make_name() is an allocation wrapper (issue 26): the leak is headlined at main's call
    # of it, and the library's line named as the wrapper seen through.
    grep -Eqx 'memtrack:   10 bytes in 1 block at (/.*/)?main.c:5 in main\(\) by malloc: #1' "$1" &&
        grep -Eq '^memtrack:   shown at their callers: make_name\(\) \((/.*/)?names.c:6, an allocation wrapper' "$1"
}
expect_leak() { # expect_leak WHAT PROGRAM
    status=0
    "$2" 2>"$1.err" || status=$?
    [ $status = 0 ] || { echo "$1: exited $status"; cat "$1.err"; exit 1; }
    readelf -d "$2" | grep -q 'NEEDED.*libmemtrack' ||
        { echo "$1: libmemtrack is not in the link"; readelf -d "$2" | grep NEEDED; exit 1; }
    reported_with_main "$1.err" ||
        { echo "$1: the library's leak is not reported with main below it:"; cat "$1.err"; exit 1; }
}

for lib in plain tracked; do
    # memtrack cc, the linker's default --as-needed in force
    "$mt" cc -g main.c -o "cc-$lib" $as_needed -L. -l$lib -Wl,-rpath,"$PWD"
    expect_leak "cc-$lib" "./cc-$lib"
    # pkg-config: the header force-included, or not at all (only the Libs keep it linked)
    export PKG_CONFIG_PATH="$TOP/build/pkgconfig"
    # shellcheck disable=SC2046
    cc -g -DMEMORY_CONTROL_ON -include memtrack.h $(pkg-config --cflags memtrack) main.c \
        -o "pc-$lib" $as_needed -L. -l$lib -Wl,-rpath,"$PWD" $(pkg-config --libs memtrack)
    expect_leak "pc-$lib" "./pc-$lib"
    # shellcheck disable=SC2046
    cc -g main.c -o "pc-libs-$lib" $as_needed -L. -l$lib -Wl,-rpath,"$PWD" $(pkg-config --libs memtrack)
    expect_leak "pc-libs-$lib" "./pc-libs-$lib"
done

# The CMake targets: shared and static.
cat >CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(thin_main C)
find_package(memtrack REQUIRED)
add_library(names SHARED names.c)
add_executable(app main.c)
target_link_libraries(app PRIVATE names memtrack::memtrack)
add_executable(app_static main.c)
target_link_libraries(app_static PRIVATE names memtrack::static)
CM
CFLAGS=-g LDFLAGS=$as_needed cmake -S . -B b -Dmemtrack_DIR="$TOP/build/cmake" >cfg.log 2>&1 ||
    { cat cfg.log; exit 1; }
cmake --build b >build.log 2>&1 || { cat build.log; exit 1; }
expect_leak cmake b/app
status=0
b/app_static 2>cmake-static.err || status=$?
reported_with_main cmake-static.err ||
    { echo "memtrack::static: the library's leak is not reported:"; cat cmake-static.err; exit 1; }

# libmemtrack loaded, but not the process's allocator: a plain program over a library built
# with memtrack, where the C library's malloc comes first. One line says so, with the fix.
cc -g main.c -o late -L. -ltracked -Wl,-rpath,"$PWD"
./late 2>late.err || true
grep -c 'is not the process.s allocator' late.err | grep -qx 1 ||
    { echo "late: no single warning that libmemtrack is not the allocator:"; cat late.err; exit 1; }
grep -q 'memtrack cc' late.err && grep -q -- '--preload' late.err ||
    { echo "late: the warning gives no fix:"; cat late.err; exit 1; }
# quiet=1 silences it, as every message
MEMTRACK_OPTIONS=quiet=1 ./late 2>late-quiet.err || true
[ ! -s late-quiet.err ] || { echo "quiet=1 still warns:"; cat late-quiet.err; exit 1; }
echo "always_linked: ok"
