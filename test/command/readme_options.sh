# readme_options.sh - the documented options table (tools/doc/options.md, which the README
# points to) lists every option of the one options table (as MEMTRACK_OPTIONS=help=1 prints
# it) with the same default, and nothing else.
set -eu
printf 'int main(void){return 0;}\n' >"$OUT/empty.c"
cc "$OUT/empty.c" -o "$OUT/empty" -Wl,--no-as-needed -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build"
MEMTRACK_OPTIONS=help=1 "$OUT/empty" 2>&1 >/dev/null | sed -n 's/^memtrack: //p' |
    sed -n 's/^  \([a-z_]*\) *\(0|1\|number\|bytes\|count\|text\) *\([^ ]*\) .*/\1 \3/p' |
    sed 's/ -$/ /' | sort >"$OUT/options.lib"
sed -n 's/^| `\([a-z_]*\)` | \([^ |]*\) | .*/\1 \2/p' "$TOP/tools/doc/options.md" | sort >"$OUT/options.readme"
[ -s "$OUT/options.lib" ] || { echo "help=1 printed no options"; exit 1; }
diff -u "$OUT/options.lib" "$OUT/options.readme"
