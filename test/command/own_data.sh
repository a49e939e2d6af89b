# own_data.sh - every writable section of libmemtrack's data has the markers the leak scan
# cuts out of the program's data (src/base/own_data.h): otherwise the tracker's own error
# log or caches, which hold block addresses, would be read as the program's globals in a
# static link, and lost blocks would look held. The sections of memtrack-c.o (the static
# library's one object) are listed with readelf; those made read-only after relocation
# (.data.rel.ro), and the constructor tables, hold no block address.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir own_data
obj="$TOP/build/memtrack-c.o"
readelf -SW "$obj" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .* \(W[A-Za-z]*\) .*/\1 \2/p' |
    awk '$2 ~ /A/ {print $1}' | grep -v -e '^\.data\.rel\.ro' -e '^\.init_array' -e '^\.fini_array' |
    sort >sections.txt
cat sections.txt
[ -s sections.txt ] || { echo "no writable section found in $obj"; exit 1; }
while read -r section; do
    name=$(printf '%s' "${section#.}" | tr . _)
    for end in begin end; do
        nm "$obj" | grep -q " mt_own_${end}_$name\$" ||
            { echo "$section has no marker mt_own_${end}_$name (src/base/own_data_begin.c)"; exit 1; }
    done
done <sections.txt
echo "own_data: ok"
