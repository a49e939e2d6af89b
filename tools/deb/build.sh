#!/bin/sh
# build.sh - the Debian package of memtrack, from a staged install (make deb).
#
#   tools/deb/build.sh ROOT OUTDIR VERSION MAINTAINER
#
# ROOT holds `make install DESTDIR=ROOT PREFIX=/usr LIBDIR=/usr/lib/MULTIARCH`; it is laid
# out as debian/memtrack under its parent, which dpkg-shlibdeps expects, and its parent gets
# the small debian/control dpkg-shlibdeps reads (generated here: no debian/ folder in the
# source tree). The package's Depends are dpkg-shlibdeps' answer for every ELF file in it
# (the C library, at the version of the newest symbol used); what libmemtrack loads with
# dlopen (libdw for file:line, libgcc_s for the leak scan's unwinder, libstdc++ for C++
# names) is in tools/deb/control.in's Recommends, which test/package/deb.sh holds against
# the libraries' strings. Man pages are
# compressed as Debian policy asks; dpkg-deb makes the files root's.
set -eu
root=$(cd "$1" && pwd) out=$2 version=$3 maintainer=$4
here=$(cd "$(dirname "$0")" && pwd)
case $root in */debian/memtrack) ;; *) echo "deb: $root is not .../debian/memtrack" >&2; exit 2 ;; esac
work=$(dirname "$(dirname "$root")")
arch=$(dpkg --print-architecture)

# Manual pages: gzip -9n (no name or time stamp inside: the same bytes from the same page),
# and each link renamed to point at the compressed page.
for dir in "$root"/usr/share/man/man*; do
    [ -d "$dir" ] || continue
    for page in "$dir"/*; do
        if [ -f "$page" ] && [ ! -L "$page" ]; then gzip -9nf "$page"; fi
    done
    for link in "$dir"/*; do
        if [ -L "$link" ]; then
            target=$(readlink "$link")
            rm -f "$link"
            ln -s "${target%.gz}.gz" "${link%.gz}.gz"
        fi
    done
done

# Modes: directories 755, files 644 unless executable (755); nothing writable by others.
find "$root" -type d -exec chmod 755 {} +
find "$root" -type f -perm /111 -exec chmod 755 {} +
find "$root" -type f ! -perm /111 -exec chmod 644 {} +

# Depends, from the ELF files.
elf=""
for f in $(find "$root" -type f | sort); do
    if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then elf="$elf -e${f#"$work"/}"; fi
done
[ -n "$elf" ] || { echo "deb: no ELF file under $root" >&2; exit 1; }
mkdir -p "$work/debian" "$root/DEBIAN" # dpkg-shlibdeps finds the package's root by DEBIAN/
printf 'Source: memtrack\n\nPackage: memtrack\nArchitecture: any\n' >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O $elf 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') ||
    { cat "$work/shlibdeps.log" >&2; exit 1; }
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no dependency" >&2; cat "$work/shlibdeps.log" >&2; exit 1; }

# The control files.
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" "$here/control.in" >"$root/DEBIAN/control"
# libmemtrack.so is in the loader's directories: ldconfig runs after install and removal.
echo 'activate-noawait ldconfig' >"$root/DEBIAN/triggers"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
    xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/triggers" "$root/DEBIAN/md5sums"

deb="$out/memtrack_${version}_$arch.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
