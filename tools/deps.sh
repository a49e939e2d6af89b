#!/bin/sh
# deps.sh - make sure the Debian packages a make target needs are installed.
#
#   tools/deps.sh build|test|bench|browser|platforms|deb
#
# Missing packages are installed with apt-get when we are root (CI, containers);
# otherwise we stop with the exact command to run.
set -eu

need_build="uthash-dev pkg-config g++ libdw-dev"
# libc6-dbg: the C library's debug information, which the exit report must not read for the
# frames it leaves out (test/report/exit_symbols.sh; make bench-exit, its worst case).
need_test="$need_build libcriterion-dev clang libclang-rt-14-dev valgrind python3-jsonschema libc6-dbg \
    cmake autoconf meson ninja-build mandoc man-db dpkg-dev libjansson-dev"
# make deb: dpkg-shlibdeps computes the package's dependencies.
need_deb="dpkg-dev"
# liblua5.4-dev, libsqlite3-dev, libjansson-dev: the real libraries of make bench-libs.
need_bench="$need_build libdmalloc-dev clang libclang-rt-14-dev valgrind duma electric-fence libc6-dbg \
    liblua5.4-dev libsqlite3-dev libjansson-dev"
# The other targets (make test-platforms, tools/platform.mk): compilers and emulators. The
# i686 compiler is Debian's cross one, not gcc-multilib, which conflicts with the others.
need_platforms="uthash-dev musl-tools gcc-i686-linux-gnu libc6-dev-i386-cross \
gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user \
gcc-mingw-w64-x86-64 wine64 gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"
# Node.js and npm may come from elsewhere (NodeSource's nodejs ships npm): Debian's are
# wanted only when there is no npm at all.
need_browser="chromium"
command -v npm >/dev/null 2>&1 || need_browser="$need_browser nodejs npm"

case "${1:-build}" in
build) want=$need_build ;;
test) want=$need_test ;;
bench) want=$need_bench ;;
browser) want=$need_browser ;;
platforms) want=$need_platforms ;;
deb) want=$need_deb ;;
*) echo "usage: tools/deps.sh build|test|bench|browser|platforms|deb" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "memtrack: missing packages:$missing (not a Debian system: install their equivalents)" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "memtrack: missing packages:$missing" >&2
    echo "memtrack: run: sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "memtrack: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt-get may hold the lock (a second make in parallel): wait for it.
apt="apt-get -o DPkg::Lock::Timeout=600"
$apt install -y -q $missing >/dev/null 2>&1 || {
    $apt update -q >/dev/null 2>&1 || true
    $apt install -y -q $missing >/dev/null
}
