# doc_links.sh - the documents stay one web: every relative Markdown link in README.md,
# tools/doc/*.md, src/README.md, test/README.md and tools/bench/ names a file that exists
# and, with #anchor, a heading of that file (as GitHub makes anchors from headings); the front
# door stays short: README.md at most 400 lines, tools/bench/README.md at most 300. Each
# check is run once on documents made wrong on purpose, and must fail there.
set -eu

# check ROOT FILE... : prints each broken link or overlong document, exits 1 if any.
check() {
    python3 - "$@" <<'PY'
import os, re, sys
root, files = sys.argv[1], sys.argv[2:]
MAX_LINES = {'README.md': 400, 'tools/bench/README.md': 300}

def strip_code(text):
    """The text outside fenced blocks and inline code: links and headings there are code."""
    out, fence = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fence = not fence
            out.append('')
            continue
        out.append('' if fence else re.sub(r'`[^`]*`', lambda m: 'x' * len(m.group(0)), line))
    return out

def anchors(path):
    """GitHub's anchors: the heading lowercased, punctuation dropped, spaces to hyphens,
    -1, -2... for repeats."""
    seen, result, fence = {}, set(), False
    for line in open(path, encoding='utf-8').read().split('\n'):
        if line.lstrip().startswith('```'):
            fence = not fence
        m = None if fence else re.match(r'^#{1,6} +(.*?) *#*$', line)
        if not m:
            continue
        slug = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower()).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else '%s-%d' % (slug, n))
    return result

bad = 0
for rel in files:
    path = os.path.join(root, rel)
    text = open(path, encoding='utf-8').read()
    if rel in MAX_LINES and text.count('\n') > MAX_LINES[rel]:
        print('%s: %d lines, at most %d' % (rel, text.count('\n'), MAX_LINES[rel]))
        bad += 1
    for number, line in enumerate(strip_code(text), 1):
        for target in re.findall(r'\]\(([^)\s]+)(?: "[^"]*")?\)', line):
            if re.match(r'[a-z]+:', target):
                continue  # http:, https:, mailto: are not ours to check
            file, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                print('%s:%d: %s: no such file' % (rel, number, target))
                bad += 1
            elif anchor and (not dest.endswith('.md') or anchor not in anchors(dest)):
                print('%s:%d: %s: no such heading' % (rel, number, target))
                bad += 1
sys.exit(1 if bad else 0)
PY
}

shopt -s nullglob
docs="README.md src/README.md test/README.md"
for f in "$TOP"/tools/doc/*.md "$TOP"/tools/bench/*.md; do docs="$docs ${f#"$TOP"/}"; done
# shellcheck disable=SC2086
check "$TOP" $docs

# Made wrong on purpose: a missing file, a missing heading, a README too long. Each must fail.
bad="$OUT/doc_links"
rm -rf "$bad" && mkdir -p "$bad/tools/doc" "$bad/tools/bench"
printf '# A\n\n## Heading `code` here: yes\n\n[ok](#heading-code-here-yes) [ok](tools/doc/x.md#b)\n' \
    >"$bad/README.md"
printf '# B\n' >"$bad/tools/doc/x.md"
check "$bad" README.md tools/doc/x.md
printf '[gone](tools/doc/nothing.md)\n' >>"$bad/README.md"
if check "$bad" README.md >/dev/null; then echo "a link to a missing file passed"; exit 1; fi
printf '# A\n\n[gone](tools/doc/x.md#c)\n' >"$bad/README.md"
if check "$bad" README.md >/dev/null; then echo "a link to a missing heading passed"; exit 1; fi
printf '# A\n```\n[code, not a link](nothing.md)\n```\n' >"$bad/README.md"
check "$bad" README.md
seq 401 >"$bad/README.md"
if check "$bad" README.md >/dev/null; then echo "a README of 401 lines passed"; exit 1; fi
seq 301 >"$bad/tools/bench/README.md"
if check "$bad" tools/bench/README.md >/dev/null; then echo "a bench README of 301 lines passed"; exit 1; fi
echo "doc links: every link resolves"
