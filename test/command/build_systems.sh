# build_systems.sh - autoconf, CMake and Meson configure a project with CC="memtrack cc"
# exactly as with the plain compiler (their config headers are compared byte for byte), and
# the project then builds tracked. The probes are the ones that went wrong: C99/C11 probes
# that declare malloc themselves, check_function_exists(strtoll) declaring `char
# strtoll(void)`, autoconf's "undeclared builtins are errors" check. find_package(memtrack)
# gives a target that tracks, from the build tree and from an installed copy.
set -eu
mt="$TOP/memtrack"
work="$OUT/build_systems"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# The project's one source: it uses what configure found, and leaks at a known line.
cat >app.c <<'C'
#include "config.h"
#include <stdlib.h>
#include <string.h>
int main(void)
{
    char *name = malloc(16); /* leaked */
    strcpy(name, "probe");
#if defined(HAVE_STRTOLL) && HAVE_STRTOLL
    return (int)strtoll("0", NULL, 10);
#else
    return 3;
#endif
}
C

same_config() { # same_config PLAIN TRACKED WHAT
    if ! cmp -s "$1" "$2"; then
        echo "$3: the configuration differs under memtrack cc:"
        diff "$1" "$2" || true
        exit 1
    fi
}
expect_leak() { # expect_leak PROGRAM
    status=0
    "$1" 2>err.txt || status=$?
    [ $status = 0 ] || { echo "$1 exited $status (strtoll not found?)"; cat err.txt; exit 1; }
    grep -q "16 bytes in 1 block at .*app.c:6 in main() by malloc" err.txt ||
        { echo "$1: no tracked leak"; cat err.txt; exit 1; }
}

# ---- autoconf: AC_PROG_CC's C11/C99 probes, AC_CHECK_FUNCS, AC_CHECK_DECLS ----
mkdir ac && cd ac
cp ../app.c .
cat >configure.ac <<'AC'
AC_INIT([probe], [1.0])
AC_CONFIG_HEADERS([config.h])
AC_PROG_CC
AC_CHECK_FUNCS([strtoll strchr malloc_usable_size no_such_function_here])
AC_CHECK_DECLS([strchr, strtoll], [], [], [[#include <string.h>
#include <stdlib.h>]])
AC_TYPE_LONG_LONG_INT
AC_OUTPUT
AC
autoconf 2>/dev/null || autoconf
autoheader 2>/dev/null || autoheader
./configure CC=cc >plain.log 2>&1 || { cat plain.log; exit 1; }
mv config.h config.plain.h
grep -q '^#define HAVE_STRTOLL 1' config.plain.h
grep -q '^#define HAVE_DECL_STRCHR 1' config.plain.h
./configure CC="$mt cc" >tracked.log 2>&1 || { echo "configure failed under memtrack cc:"; tail -20 config.log; exit 1; }
same_config config.plain.h config.h autoconf
# the compiler line configure settled on is the same (no extra -std option needed)
grep '^CC=' config.log >cc.tracked
./configure CC=cc >/dev/null 2>&1
grep '^CC=' config.log | sed "s|^CC='cc'|CC='$mt cc'|" >cc.plain
cmp -s cc.plain cc.tracked || { echo "autoconf chose another compiler line:"; diff cc.plain cc.tracked; exit 1; }
"$mt" cc -g app.c -o app
expect_leak ./app
cd ..

# ---- CMake: compiler identification, check_function_exists, check_symbol_exists ----
mkdir cm && cd cm
cp ../app.c .
cat >CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(probe C)
include(CheckFunctionExists)
include(CheckSymbolExists)
include(CheckTypeSize)
include(CheckIncludeFile)
check_function_exists(strtoll HAVE_STRTOLL)
check_function_exists(malloc HAVE_MALLOC)
check_function_exists(no_such_function_here HAVE_NO_SUCH)
check_symbol_exists(strchr "string.h" HAVE_STRCHR)
check_include_file(malloc.h HAVE_MALLOC_H)
check_type_size("long long" SIZEOF_LONG_LONG)
configure_file(config.h.in config.h)
include_directories(${CMAKE_CURRENT_BINARY_DIR})
add_executable(app app.c)
CM
cat >config.h.in <<'IN'
#cmakedefine01 HAVE_STRTOLL
#cmakedefine01 HAVE_MALLOC
#cmakedefine01 HAVE_NO_SUCH
#cmakedefine01 HAVE_STRCHR
#cmakedefine01 HAVE_MALLOC_H
#define SIZEOF_LONG_LONG @SIZEOF_LONG_LONG@
IN
CC=cc cmake -S . -B plain >plain.log 2>&1 || { cat plain.log; exit 1; }
CC="$mt cc" cmake -S . -B tracked >tracked.log 2>&1 || { cat tracked.log; exit 1; }
grep -q '^#define HAVE_STRTOLL 1' plain/config.h
same_config plain/config.h tracked/config.h CMake
cmake --build tracked >build.log 2>&1 || { cat build.log; exit 1; }
cd tracked && expect_leak ./app && cd ..

# find_package(memtrack): a plain project that links memtrack::memtrack is tracked.
mkdir fp && cd fp
cp ../../app.c .
printf '#define HAVE_STRTOLL 1\n' >config.h
cat >CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(uses_memtrack C)
find_package(memtrack 1.0 REQUIRED)
add_executable(app app.c)
target_include_directories(app PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(app PRIVATE memtrack::memtrack)
add_executable(app_static app.c)
target_include_directories(app_static PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(app_static PRIVATE memtrack::static)
CM
CFLAGS=-g cmake -S . -B b -Dmemtrack_DIR="$TOP/build/cmake" >cfg.log 2>&1 || { cat cfg.log; exit 1; }
cmake --build b >build.log 2>&1 || { cat build.log; exit 1; }
expect_leak b/app
expect_leak b/app_static
# an installed copy, found through CMAKE_PREFIX_PATH
make -C "$TOP" -s install PREFIX="$work/prefix" >/dev/null
[ -f "$work/prefix/lib/cmake/memtrack/memtrackConfig.cmake" ]
CFLAGS=-g cmake -S . -B inst -DCMAKE_PREFIX_PATH="$work/prefix" >cfg.log 2>&1 || { cat cfg.log; exit 1; }
cmake --build inst >build.log 2>&1 || { cat build.log; exit 1; }
expect_leak inst/app
# a version it is not
sed -i 's/find_package(memtrack 1.0 REQUIRED)/find_package(memtrack 2.0 REQUIRED)/' CMakeLists.txt
if cmake -S . -B v2 -Dmemtrack_DIR="$TOP/build/cmake" >v2.log 2>&1; then
    echo "find_package(memtrack 2.0) accepted version 1"; exit 1
fi
cd ../..

# ---- Meson: has_function, has_header_symbol, sizeof ----
mkdir ms && cd ms
cp ../app.c .
cat >meson.build <<'MS'
project('probe', 'c')
cc = meson.get_compiler('c')
conf = configuration_data()
conf.set10('HAVE_STRTOLL', cc.has_function('strtoll'))
conf.set10('HAVE_MALLOC', cc.has_function('malloc'))
conf.set10('HAVE_NO_SUCH', cc.has_function('no_such_function_here'))
conf.set10('HAVE_STRCHR', cc.has_header_symbol('string.h', 'strchr'))
conf.set('SIZEOF_LONG_LONG', cc.sizeof('long long'))
configure_file(output : 'config.h', configuration : conf)
executable('app', 'app.c')
MS
CC=cc meson setup plain >plain.log 2>&1 || { cat plain.log; exit 1; }
CC="$mt cc" meson setup tracked >tracked.log 2>&1 || { cat tracked.log; exit 1; }
grep -q '^#define HAVE_STRTOLL 1' plain/config.h
same_config plain/config.h tracked/config.h Meson
ninja -C tracked >build.log 2>&1 || { cat build.log; exit 1; }
expect_leak tracked/app
echo "build_systems: ok"
