# deb.sh - the Debian package of `make deb`: its dependencies agree with what its binaries
# need; dpkg -i installs it; a leaking program built against the installed copy through
# pkg-config, through CMake and with the installed `memtrack cc` (and a plain one under
# `memtrack run --preload`) has its leak reported at the right line and exits 23 under
# `memtrack run`; the manual pages are found and lint-clean; dpkg -r removes it and leaves
# the machine as it was (every file it listed gone, the directories it made gone, the ones it
# found still there).
#
# It needs root (dpkg -i), which CI has: otherwise it is skipped, saying so. It installs
# into /usr, so `make test` runs it last and alone (no other suite's build may find the
# package there), and a lock keeps two runs on one machine (two worktrees) apart. It never
# touches a memtrack that something else installed: it is skipped when the package is
# installed already or a file it would install exists.
set -eu
skip() {
    echo "skipped: $*"
    exit 77
}
[ "$(id -u)" = 0 ] || skip "dpkg -i needs root (CI runs make test as root)"
command -v dpkg-deb >/dev/null && command -v dpkg >/dev/null || skip "not a Debian system: no dpkg"

exec 9>/run/lock/memtrack-package-test.lock
flock 9

if dpkg-query -W -f='${db:Status-Status}' memtrack 2>/dev/null | grep -qv '^not-installed$'; then
    skip "the memtrack package is installed on this machine already (dpkg -r memtrack first)"
fi

work="$OUT/deb"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

make -C "$TOP" -s deb >deb.out 2>&1 || { cat deb.out; exit 1; }
deb=$(ls "$TOP"/build/deb/memtrack_*.deb)
[ "$(dpkg-deb -f "$deb" Package)" = memtrack ] || { echo "$deb is not memtrack's package"; exit 1; }

# ---- what the package holds ---------------------------------------------------------------
dpkg-deb -c "$deb" | awk '{ print $1, $6 }' | sed 's| \./| /|; s|/$||' | grep -v ' $' >contents
awk '$1 !~ /^d/ { print $2 }' contents | sort >files
awk '$1 ~ /^d/ { print $2 }' contents | sort >dirs
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=/usr/lib/$multiarch
for f in /usr/include/memtrack.h $libdir/libmemtrack.so $libdir/libmemtrack.a \
    $libdir/pkgconfig/memtrack.pc $libdir/cmake/memtrack/memtrackConfig.cmake \
    $libdir/cmake/memtrack/memtrackConfigVersion.cmake /usr/bin/memtrack \
    /usr/libexec/memtrack/memtrack-report /usr/share/man/man1/memtrack.1.gz \
    /usr/share/man/man3/memtrack.3.gz /usr/share/man/man3/memtrack_report_since.3.gz; do
    grep -qx "$f" files || { echo "the package does not hold $f"; cat files; exit 1; }
done
while read -r f; do
    if [ -e "$f" ] || [ -L "$f" ]; then skip "$f exists already and is not the package's: not overwriting it"; fi
done <files
while read -r d; do [ ! -d "$d" ] || echo "$d"; done <dirs >dirs.before

# ---- its dependencies: Depends covers every library its binaries need (objdump NEEDED),
# Depends or Recommends every library they name to load (libdw, libstdc++ by dlopen) -----
owner() { # owner SONAME: the package that holds the machine's copy of SONAME
    path=$(ldconfig -p | awk -v so="$1" '$1 == so && /x86-64|64bit/ { print $NF; exit }')
    [ -n "$path" ] || path=$(ldconfig -p | awk -v so="$1" '$1 == so { print $NF; exit }')
    [ -n "$path" ] || { echo "no $1 on this machine" >&2; return 1; }
    real=$(readlink -f "$path")
    { dpkg -S "$path" 2>/dev/null || dpkg -S "$real"; } | head -1 | sed 's/:.*//; s/,.*//'
}
check_deps() { # check_deps DEB
    rm -rf extract && mkdir extract
    dpkg-deb -x "$1" extract
    field() { # field NAME: the package names in a control field, one a line
        dpkg-deb -f "$1" "$2" | tr ',|' '\n\n' | sed 's/(.*)//; s/^ *//; s/ *$//' | grep -v '^$' || true
    }
    field "$1" Depends | sort -u >depends
    { field "$1" Depends; field "$1" Recommends; } | sort -u >recommends
    elves=$(find extract -type f -exec sh -c 'head -c 4 "$1" | grep -q "ELF"' _ {} \; -print)
    [ -n "$elves" ] || { echo "no ELF file in the package"; return 1; }
    for elf in $elves; do
        for so in $(objdump -p "$elf" | awk '$1 == "NEEDED" { print $2 }'); do
            pkg=$(owner "$so")
            grep -qx "$pkg" depends || { echo "${elf#extract} needs $so ($pkg), not in Depends"; return 1; }
        done
        for so in $(strings -a "$elf" | grep -E '^lib[A-Za-z0-9_+.-]*\.so\.[0-9]+$' | sort -u); do
            pkg=$(owner "$so")
            grep -qx "$pkg" recommends || { echo "${elf#extract} loads $so ($pkg), in neither Depends nor Recommends"; return 1; }
        done
    done
}
check_deps "$deb"
# controls: the same package declaring less must fail the check
relabel() { # relabel FIELD VALUE OUT: the package with a control field changed
    rm -rf raw && dpkg-deb -R "$deb" raw
    sed -i "s/^$1: .*/$1: $2/" raw/DEBIAN/control
    dpkg-deb --root-owner-group -Znone -b raw "$3" >/dev/null
}
relabel Depends libdw1 no_libc.deb
if check_deps no_libc.deb >control.out; then echo "control: a package without libc6 in Depends passed"; exit 1; fi
grep -q "needs libc.so.6 (libc6), not in Depends" control.out || { cat control.out; exit 1; }
relabel Recommends 'gcc | c-compiler' no_libdw.deb
if check_deps no_libdw.deb >control.out; then echo "control: a package recommending no libdw1 passed"; exit 1; fi
grep -q "loads libdw.so.1 (libdw1), in neither" control.out || { cat control.out; exit 1; }

# ---- install; from here on, whatever happens, the package is removed at exit ------------
installed=0 stray=""
unstray() { # the control's file gone, and the directories the package made that held it
    rm -f "$stray"
    d=$(dirname "$stray")
    while grep -qx "$d" dirs && ! grep -qx "$d" dirs.before && rmdir "$d" 2>/dev/null; do
        d=$(dirname "$d")
    done
    stray=""
}
remove() {
    if [ $installed = 1 ]; then dpkg -r memtrack >/dev/null 2>&1 || true; fi
    if [ -n "$stray" ]; then unstray; fi
}
trap remove EXIT
dpkg_run() { # dpkg ARGS...: waiting while apt or another dpkg holds the lock (bounded)
    for _ in $(seq 1 300); do
        if dpkg "$@" >dpkg.out 2>&1; then return 0; fi
        grep -q 'lock' dpkg.out || { cat dpkg.out; return 1; }
        sleep 1
    done
    cat dpkg.out
    return 1
}
installed=1
dpkg_run -i "$deb"
[ "$(dpkg-query -W -f='${db:Status-Abbrev}' memtrack)" = "ii " ] || { echo "not installed after dpkg -i"; exit 1; }
dpkg --verify memtrack || { echo "dpkg --verify memtrack found changed files"; exit 1; }
ldconfig -p | grep -q "^[[:space:]]libmemtrack.so " || { echo "ldconfig does not know libmemtrack.so"; exit 1; }

# ---- use it as a user would -----------------------------------------------------------------
unset PKG_CONFIG_PATH CMAKE_PREFIX_PATH memtrack_DIR MEMTRACK_OPTIONS LD_PRELOAD || true
export PATH="/usr/bin:/bin:/usr/sbin:/sbin"
[ "$(command -v memtrack)" = /usr/bin/memtrack ] || { echo "memtrack on PATH is $(command -v memtrack)"; exit 1; }
memtrack --version | grep -qx "memtrack $(dpkg-deb -f "$deb" Version)"
cat >leaky.c <<'C'
#include <stdlib.h>
int main(void)
{
    char *name = malloc(42);
    return name == NULL;
}
C
expect_leak() { # expect_leak BINARY: exit 23 under memtrack run, the leak at leaky.c:4
    set +e
    memtrack run -- "$@" >run.out 2>&1
    status=$?
    set -e
    [ $status = 23 ] || { echo "memtrack run -- $*: status $status, not 23"; cat run.out; exit 1; }
    grep -q "42 bytes in 1 block at .*leaky.c:4 in main() by malloc" run.out ||
        { echo "memtrack run -- $*: no leak at leaky.c:4"; cat run.out; exit 1; }
}
links_installed() { # links_installed BINARY: libmemtrack.so from the package, not the tree
    loaded=$(ldd "$1" | awk '$1 == "libmemtrack.so" { print $3 }')
    [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$libdir/libmemtrack.so")" ] ||
        { echo "$1 does not load $libdir/libmemtrack.so:"; ldd "$1"; exit 1; }
}

# pkg-config, with no path given: the package's memtrack.pc
[ "$(pkg-config --variable=libdir memtrack)" = "$libdir" ] || { echo "pkg-config finds $(pkg-config --variable=libdir memtrack)"; exit 1; }
cc -g -DMEMORY_CONTROL_ON -include memtrack.h $(pkg-config --cflags memtrack) leaky.c -o leaky_pc \
    $(pkg-config --libs memtrack)
links_installed ./leaky_pc
expect_leak ./leaky_pc

# CMake, with no prefix given: the package's memtrackConfig.cmake
mkdir cmake_project
cp leaky.c cmake_project/
cat >cmake_project/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(leaky C)
find_package(memtrack REQUIRED)
add_executable(leaky leaky.c)
target_link_libraries(leaky PRIVATE memtrack::memtrack)
CMAKE
cmake -S cmake_project -B cmake_build >cmake.out 2>&1 || { cat cmake.out; exit 1; }
grep -qx "memtrack_DIR:PATH=$libdir/cmake/memtrack" cmake_build/CMakeCache.txt ||
    { echo "CMake found memtrack elsewhere:"; grep memtrack_DIR cmake_build/CMakeCache.txt; exit 1; }
cmake --build cmake_build >>cmake.out 2>&1 || { cat cmake.out; exit 1; }
links_installed cmake_build/leaky
expect_leak cmake_build/leaky

# the installed memtrack cc, and a program built without memtrack under --preload
memtrack cc -g leaky.c -o leaky_cc
links_installed ./leaky_cc
expect_leak ./leaky_cc
cc -g -O0 leaky.c -o leaky_plain
if ldd ./leaky_plain | grep -q libmemtrack; then echo "the plain build links libmemtrack"; exit 1; fi
set +e
memtrack run --preload -- ./leaky_plain >run.out 2>&1
status=$?
set -e
[ $status = 23 ] || { echo "memtrack run --preload: status $status"; cat run.out; exit 1; }
grep -q "42 bytes in 1 block at .*leaky.c:4 in main() by malloc" run.out || { cat run.out; exit 1; }

# the manual pages, as man finds them
[ "$(man -w memtrack)" = /usr/share/man/man1/memtrack.1.gz ] || { echo "man -w memtrack: $(man -w memtrack)"; exit 1; }
MANPAGER=cat man 3 memtrack_arena_rewind 2>&1 | grep -q "memtrack_arena_rewind(memtrack_arena_t \*arena, size_t mark)" ||
    { echo "man 3 memtrack_arena_rewind does not show memtrack(3)"; exit 1; }
for page in /usr/share/man/man1/memtrack.1.gz /usr/share/man/man3/memtrack.3.gz; do
    lint=$(zcat "$page" | mandoc -T lint 2>&1) && [ -z "$lint" ] || { echo "$page: $lint"; exit 1; }
done

# ---- remove it: nothing of it is left ------------------------------------------------------
dpkg -L memtrack | sort >listed
grep -qx "$libdir/libmemtrack.so" listed || { echo "dpkg -L does not list libmemtrack.so"; exit 1; }
# control: a file of ours in a directory the package made, which dpkg -r must leave (the
# directory with it), and which check_removed must then find
made=$(sort dirs.before | comm -23 dirs - | awk '{ print length, $0 }' | sort -rn | head -1 | cut -d' ' -f2-)
[ -n "$made" ] || { echo "the package made no directory of its own"; exit 1; }
stray="$made/deb-test-control"
: >"$stray"
installed=0
dpkg_run -r memtrack
status=$(dpkg-query -W -f='${db:Status-Status}' memtrack 2>/dev/null || echo not-installed)
[ "$status" = not-installed ] || { echo "after dpkg -r memtrack is $status"; exit 1; }
check_removed() { # every path dpkg listed gone, but the directories found before install
    left=0
    while read -r p; do
        if [ -d "$p" ] && [ ! -L "$p" ]; then
            if ! grep -qx "$p" dirs.before && grep -qx "$p" dirs; then echo "left directory: $p"; left=1; fi
        elif [ -e "$p" ] || [ -L "$p" ]; then
            echo "left: $p"
            left=1
        fi
    done <listed
    while read -r d; do [ -d "$d" ] || { echo "removed a directory it found: $d"; left=1; }; done <dirs.before
    if ldconfig -p | grep -q libmemtrack; then echo "ldconfig still knows libmemtrack.so"; left=1; fi
    hash -r
    if command -v memtrack >/dev/null; then echo "memtrack still on PATH"; left=1; fi
    return $left
}
if check_removed >control.out; then echo "control: check_removed missed $made"; exit 1; fi
grep -qx "left directory: $made" control.out || { cat control.out; exit 1; }
unstray
check_removed
echo "deb: ok ($(basename "$deb"), Depends: $(dpkg-deb -f "$deb" Depends))"
