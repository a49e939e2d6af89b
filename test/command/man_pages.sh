# man_pages.sh - memtrack(1) and memtrack(3): lint-clean for mandoc, rendered by man, every
# option `memtrack --options` prints documented in memtrack(1) with its default, every
# function memtrack.h declares named and prototyped in memtrack(3) (the prototypes compiled
# against the header), and make install / uninstall of the pages and their links. Each check
# is run once on a page or header made wrong on purpose, and must fail there.
set -eu
page1="$TOP/build/man/memtrack.1"
page3="$TOP/build/man/memtrack.3"
[ -s "$page1" ] && [ -s "$page3" ] || { echo "build/man has no pages: run make"; exit 1; }
cd "$OUT"
rm -rf man_pages && mkdir man_pages && cd man_pages

# ---- mandoc -T lint reports nothing ----------------------------------------------------
lint() { # lint PAGE...: fails with mandoc's messages
    out=$(mandoc -T lint "$@" 2>&1) && [ -z "$out" ] || { echo "$out"; return 1; }
}
lint "$page1" "$page3"
printf '.Dd January 1, 2025\n.Dt BAD 1\n.Os\n.Sh NAME\n.Nm bad\n.Sh DESCRIPTION\n.Xyz\n' >bad.1
if lint bad.1 >/dev/null; then echo "control: mandoc -T lint passed a page with an unknown macro"; exit 1; fi

# ---- man -l renders both pages, without a warning from groff -----------------------------
render() { # render PAGE OUT: man's text of the page, failing on any warning
    MANPAGER=cat MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$1" >"$2" 2>render.err ||
        { cat render.err; return 1; }
    [ ! -s render.err ] || { echo "man -l $1 warned:"; cat render.err; return 1; }
}
render "$page1" memtrack.1.txt
render "$page3" memtrack.3.txt
for section in NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT FILES 'EXIT STATUS' EXAMPLES; do
    grep -q "^$section\$" memtrack.1.txt || { echo "memtrack(1) as man renders it has no $section"; exit 1; }
done
for section in NAME LIBRARY SYNOPSIS DESCRIPTION 'RETURN VALUES' EXAMPLES; do
    grep -q "^$section\$" memtrack.3.txt || { echo "memtrack(3) as man renders it has no $section"; exit 1; }
done
for word in MEMTRACK_OPTIONS MEMTRACK_CC MEMTRACK_CXX; do
    sed -n '/^ENVIRONMENT$/,/^FILES$/p' memtrack.1.txt | grep -q "^     $word\$" ||
        { echo "memtrack(1) ENVIRONMENT does not describe $word"; exit 1; }
done

# ---- every option of `memtrack --options` is in memtrack(1), with its default ------------
"$TOP/memtrack" --options |
    sed -n 's/^  \([a-z_][a-z_0-9]*\)  *\(0|1\|number\|bytes\|count\|text\)  *\([^ ]*\) .*/\1 \2 \3/p' >options
[ "$(wc -l <options)" -ge 40 ] || { echo "memtrack --options printed $(wc -l <options) options"; exit 1; }
check_options() { # check_options PAGE: each option a tag NAME=TYPE, saying its default
    mandoc -T ascii -O width=400 "$1" | sed -e "s/.\x08//g" | sed -n '/^OPTIONS$/,/^[A-Z]/p' >options.txt
    missing=0
    while read -r name type def; do
        entry=$(awk -v tag="     $name=$type" '$0 == tag {on = 1; next} on && /^$/ {exit} on' options.txt)
        if [ -z "$entry" ]; then
            echo "memtrack(1) does not document option $name ($type)"
            missing=1
        elif [ "$def" != - ] && ! printf '%s\n' "$entry" | grep -qF "The default is $def."; then
            echo "memtrack(1) does not give option $name's default, $def"
            missing=1
        fi
    done <options
    return $missing
}
check_options "$page1"
# control: the page without its generated list, and with one default changed
sed '/^\.It Cm "page_guard_seed"/,/^\.It /{/^\.It Cm "page_guard_seed"/d;}' "$page1" >no_option.1
if check_options no_option.1 >control.out; then echo "control: a page without page_guard_seed passed"; exit 1; fi
grep -q "does not document option page_guard_seed" control.out || { cat control.out; exit 1; }
sed 's/^\.Cm "16" \.$/.Cm "17" ./' "$page1" >bad_default.1
if check_options bad_default.1 >control.out; then echo "control: a page with guard's default 17 passed"; exit 1; fi

# ---- every function memtrack.h declares is in memtrack(3) ---------------------------------
# The functions: every public memtrack_* name the header writes before a '(' (a declaration,
# a macro or a call in a macro's body: all are functions the library has). Each must be a
# name of the page (NAME, which make install links) and have a prototype in its SYNOPSIS;
# the prototypes are compiled against the header, so they must agree with it. The names the
# header only spells as strings (MEMTRACK_CALLER_SITES' asm labels), every memtrack_* symbol
# libmemtrack.so exports, and every MEMTRACK_* macro a user may set or read must at least be
# mentioned.
check_api() { # check_api HEADER PAGE
    python3 - "$1" "$2" "$TOP/build/libmemtrack.so" <<'PY' || return 1
import re, subprocess, sys
header, page, lib = sys.argv[1:4]
h = open(header).read()
h_code = re.sub(r'/\*.*?\*/', ' ', h, flags=re.S)  # comments name functions in passing
functions = set(re.findall(r'\b(memtrack_[a-z0-9_]*[a-z0-9])\s*\(', h_code))
mentioned = set(re.findall(r'"(memtrack_[a-z0-9_]*[a-z0-9])"', h_code))
mentioned |= set(re.findall(r'\bextern\s+const\s+char\s*\*\s*(memtrack_[a-z0-9_]+)\s*;', h_code))
macros = set(re.findall(r'\b(MEMTRACK_[A-Z0-9_]*[A-Z0-9])\b', h_code)) | {'MEMORY_CONTROL_ON'}
macros -= {'MEMTRACK_H', 'MEMTRACK_INTERNAL'}  # the guard, and the library's own build
nm = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True).stdout
mentioned |= {l.split()[2] for l in nm.splitlines() if len(l.split()) == 3 and l.split()[2].startswith('memtrack_')}

src = open(page).read().splitlines()
def section(name):
    out, on = [], False
    for line in src:
        if line.startswith('.Sh '):
            on = line[4:].strip() == name
        elif on:
            out.append(line)
    return out
names = {l.split()[1] for l in section('NAME') if l.startswith('.Nm ')}
def args(text):
    return re.findall(r'"([^"]*)"|(\S+)', text)
protos, ftype, fo = {}, None, None
for line in section('SYNOPSIS'):
    word = line.split(' ', 1)
    macro, rest = word[0], word[1] if len(word) > 1 else ''
    if macro == '.Ft':
        ftype = rest.strip('"')
    elif macro == '.Fn':
        a = [q or w for q, w in args(rest)]
        protos[a[0]] = '%s (%s)(%s);' % (ftype, a[0], ', '.join(a[1:]) or 'void')
    elif macro == '.Fo':
        fo, fa = rest.strip(), []
    elif macro == '.Fa' and fo:
        fa.append(rest.strip('"'))
    elif macro == '.Fc' and fo:
        protos[fo] = '%s (%s)(%s);' % (ftype, fo, ', '.join(fa) or 'void')
        fo = None
text = '\n'.join(src)
bad = []
for f in sorted(functions):
    if f not in names:
        bad.append('%s is not a name of memtrack(3) (NAME)' % f)
    if f not in protos:
        bad.append('%s has no prototype in memtrack(3) (SYNOPSIS)' % f)
for n in sorted(mentioned | macros):
    if not re.search(r'(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])' % n, text):
        bad.append('%s is not mentioned in memtrack(3)' % n)
for n in sorted(names - functions):
    bad.append('memtrack(3) names %s, which memtrack.h does not declare' % n)
with open('synopsis.c', 'w') as out:
    out.write('#include "%s"\n' % header)
    out.write(''.join(p + '\n' for p in protos.values()))
cc = subprocess.run(['cc', '-std=c11', '-DMEMORY_CONTROL_ON', '-Werror', '-fsyntax-only', 'synopsis.c'],
                    capture_output=True, text=True)
if cc.returncode != 0:
    bad.append("memtrack(3)'s prototypes disagree with memtrack.h:\n" + cc.stderr)
for b in bad:
    print(b)
print('%d functions, %d other names, %d macros checked' % (len(functions), len(mentioned), len(macros)))
sys.exit(1 if bad else 0)
PY
}
check_api "$TOP/include/memtrack.h" "$TOP/tools/man/memtrack.3.in"
# control: a function added to the header without documentation fails the check
sed 's|^int memtrack_set_options(const char \*options);$|&\nvoid memtrack_undocumented(int level);|' \
    "$TOP/include/memtrack.h" >undocumented.h
grep -q memtrack_undocumented undocumented.h || { echo "control header not made"; exit 1; }
if check_api "$PWD/undocumented.h" "$TOP/tools/man/memtrack.3.in" >control.out; then
    echo "control: a header with memtrack_undocumented() passed"; exit 1
fi
grep -q "memtrack_undocumented is not a name of memtrack(3)" control.out || { cat control.out; exit 1; }
# control: a prototype that disagrees with the header
sed 's|^\.Fn memtrack_report_since "unsigned long mark"$|.Fn memtrack_report_since "int mark"|' \
    "$TOP/tools/man/memtrack.3.in" >wrong_proto.3
if check_api "$TOP/include/memtrack.h" wrong_proto.3 >control.out; then
    echo "control: a page with a wrong prototype of memtrack_report_since passed"; exit 1
fi
grep -q "disagree" control.out || { cat control.out; exit 1; }

# ---- make install puts the pages (and a link per function) in place; uninstall removes them
prefix="$OUT/man_pages/prefix"
make -C "$TOP" -s install PREFIX="$prefix" >/dev/null
man="$prefix/share/man"
[ -f "$man/man1/memtrack.1" ] && [ -f "$man/man3/memtrack.3" ] || { echo "pages not installed"; exit 1; }
grep -q "^\.It Pa $prefix/include/memtrack.h\$" "$man/man1/memtrack.1" ||
    { echo "the installed memtrack(1) does not name the installed header"; exit 1; }
lint "$man/man1/memtrack.1" "$man/man3/memtrack.3"
[ "$(MANPATH="$man" man -w memtrack)" = "$man/man1/memtrack.1" ] || { echo "man -w memtrack"; exit 1; }
MANPAGER=cat MANPATH="$man" man 3 memtrack_report_since 2>&1 | grep -q "memtrack_report_since(unsigned long mark)" ||
    { echo "man 3 memtrack_report_since does not show memtrack(3)"; exit 1; }
links=$(find "$man/man3" -type l | wc -l)
[ "$links" -ge 60 ] || { echo "only $links links in man3"; exit 1; }
make -C "$TOP" -s uninstall PREFIX="$prefix" >/dev/null
left=$(find "$man" -type f -o -type l)
[ -z "$left" ] || { echo "make uninstall left:"; echo "$left"; exit 1; }
echo "man_pages: ok"
