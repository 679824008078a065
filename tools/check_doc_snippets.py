#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Keeps the C++ in README.md and docs/*.md true to the code.

Every ```cpp (or ```c++) block in those files is one of three kinds:

1. An excerpt: the block names the compiled file it is taken from, by
   either convention (the path is relative to the repository root):
     - README style: the first non-blank line after the closing fence
       starts with "(`path`", e.g. "(`examples/debounce/main.cpp`; guide: ...)";
     - guide style: the paragraph just above the opening fence starts with
       "From `path`", e.g. "From `examples/debounce/main.cpp` (seed 001):".
   Each meaningful line of the block must occur in that file, in the same
   order (other lines may sit between them: a snippet may be abridged by
   leaving lines out, never by rewriting them). A line matches a whole line
   of the file. Not meaningful: blank lines, lines that are only a comment,
   lines that are only `...`. Comments are stripped from both sides before
   comparing (so a snippet may annotate a line with `// ...` or `/*...*/`)
   and whitespace differences are ignored (outside string literals).
2. A fragment: the nearest non-blank line above the opening fence is
   `<!-- fragment -->`. It illustrates and is not checked.
3. Anything else must compile on its own: it is written to a file and run
   through `CXX -std=c++20 -fsyntax-only -fno-exceptions -fno-rtti -Wall
   -Wextra -Werror -Iinclude -Iports/posix/include` (compiler errors point
   at the markdown file's lines).

A block that names a source is an excerpt even if marked a fragment. Only
fenced ```cpp blocks are checked (not indented code blocks or shell).

Each failure is printed as `file.md:line: ...` with the snippet line and
the source file; the exit status is 1 if anything failed, 2 if a FILE.md
named on the command line does not exist (`check_doc_snippets: FILE: no
such file`; nothing is checked then). `--self-test` runs the checker on
made-up pages (CTest: docs.snippets.checker_self_test).

Usage: check_doc_snippets.py [--root DIR] [--cxx COMPILER] [--self-test] [FILE.md ...]

FILE.md paths are taken as given (relative ones from the current
directory); without any, README.md and docs/*.md of --root are checked.
Either way the sources that excerpts name are found under --root (default:
the repository this script is in), and must lie inside it.
"""
import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile

FENCE_OPEN = re.compile(r'^(\s*)```\s*(cpp|c\+\+)\s*$')
FENCE_CLOSE = re.compile(r'^\s*```\s*$')
AFTER_SOURCE = re.compile(r'^\s*\(`([^`]+)`')
BEFORE_SOURCE = re.compile(r'^\s*From `([^`]+)`')
FRAGMENT = re.compile(r'^\s*<!--\s*fragment\s*-->\s*$')
WORD = re.compile(r'\w')


def normalise(text):
    """Returns one string per line of `text`: the code with comments removed
    and whitespace reduced to the single spaces that separate two words;
    string and character literals are kept verbatim."""
    out, cur = [], []
    state = 'code'          # code, block (comment), str, chr
    pending_space = False
    i, n = 0, len(text)

    def emit(ch):
        nonlocal pending_space
        if pending_space and cur and WORD.match(cur[-1]) and WORD.match(ch):
            cur.append(' ')
        pending_space = False
        cur.append(ch)

    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ''
        if c == '\n':
            if state in ('str', 'chr'):
                state = 'code'  # unterminated literal: end it with the line
            out.append(''.join(cur))
            cur, pending_space = [], False
            i += 1
            continue
        if state == 'block':
            if c == '*' and nxt == '/':
                state, pending_space = 'code', True
                i += 2
            else:
                i += 1
            continue
        if state in ('str', 'chr'):
            cur.append(c)
            if c == '\\' and nxt and nxt != '\n':
                cur.append(nxt)
                i += 2
                continue
            if (state == 'str' and c == '"') or (state == 'chr' and c == "'"):
                state = 'code'
            i += 1
            continue
        # code
        if c == '/' and nxt == '/':
            while i < n and text[i] != '\n':
                i += 1
            continue
        if c == '/' and nxt == '*':
            state = 'block'
            i += 2
            continue
        if c.isspace():
            pending_space = True
            i += 1
            continue
        if c == '"':
            emit(c)
            state = 'str'
        elif c == "'":
            # 1'000'000 is a digit separator, u8'a' and 'a' are literals.
            m = re.search(r'\w+$', ''.join(cur)) if cur and not pending_space else None
            if m and m.group(0)[0].isdigit():
                emit(c)
            else:
                emit(c)
                state = 'chr'
        else:
            emit(c)
        i += 1
    out.append(''.join(cur))
    return out


def meaningful(norm):
    return norm != '' and norm != '...'


class Block:
    def __init__(self, md, start, lines, source, fragment):
        self.md = md            # path of the markdown file, as printed
        self.start = start      # 1-based line number of the opening fence
        self.lines = lines      # the block's lines, without the fences
        self.source = source    # named source file, or None
        self.fragment = fragment


def blocks_of(md_path, display):
    with open(md_path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    found, i = [], 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        start = i
        j = i + 1
        while j < len(lines) and not FENCE_CLOSE.match(lines[j]):
            j += 1
        body = [l[indent:] if l[:indent].isspace() else l.lstrip() for l in lines[i + 1:j]]
        # What names the block: the paragraph above, or the line after it.
        above = start - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        fragment = above >= 0 and bool(FRAGMENT.match(lines[above]))
        para = above
        while para > 0 and lines[para - 1].strip() and not lines[para - 1].lstrip().startswith('```'):
            para -= 1
        source = None
        if above >= 0 and not lines[above].lstrip().startswith('```'):
            m = BEFORE_SOURCE.match(lines[para])
            if m:
                source = m.group(1)
        after = j + 1
        while after < len(lines) and not lines[after].strip():
            after += 1
        if source is None and after < len(lines):
            m = AFTER_SOURCE.match(lines[after])
            if m:
                source = m.group(1)
        found.append(Block(display, start + 1, body, source, fragment))
        i = j + 1
    return found


def check_excerpt(block, root):
    """Returns the failure messages for an excerpt block."""
    path = os.path.normpath(os.path.join(root, block.source))
    if os.path.isabs(block.source) or os.path.relpath(path, root).startswith(os.pardir):
        return [f'{block.md}:{block.start}: names `{block.source}`, which is not a path inside the '
                f'repository (sources are relative to its root)']
    if not os.path.isfile(path):
        what = 'is a directory, not a file' if os.path.isdir(path) else 'does not exist'
        return [f'{block.md}:{block.start}: names `{block.source}`, which {what}']
    with open(path, encoding='utf-8') as f:
        src = normalise(f.read())
    failures = []
    pos = 0  # index in src after the last matched line
    for k, norm in enumerate(normalise('\n'.join(block.lines))):
        if not meaningful(norm):
            continue
        line_no = block.start + 1 + k
        shown = block.lines[k].strip()
        hit = next((s for s in range(pos, len(src)) if src[s] == norm), None)
        if hit is not None:
            pos = hit + 1
            continue
        earlier = next((s for s in range(pos) if src[s] == norm), None)
        if earlier is not None:
            why = f'is in {block.source}:{earlier + 1}, but before the line matched above it'
        else:
            why = f'not found in {block.source}'
        failures.append(f'{block.md}:{line_no}: snippet line\n    {shown}\n  {why}')
    return failures


def check_compiles(block, cxx, includes):
    """Compiles a block that names no source and is not a fragment."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'snippet.cpp')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(f'#line {block.start + 1} "{block.md}"\n')
            f.write('\n'.join(block.lines) + '\n')
        cmd = [cxx, '-std=c++20', '-fsyntax-only', '-fno-exceptions', '-fno-rtti',
               '-Wall', '-Wextra', '-Werror'] + [f'-I{d}' for d in includes] + [path]
        p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 0:
        return []
    first = next((l.strip() for l in block.lines if l.strip()), '')
    return [f'{block.md}:{block.start}: block names no source file, is not marked '
            f'<!-- fragment -->, and does not compile with {cxx}\n    {first}\n'
            + '\n'.join('    ' + l for l in (p.stderr or p.stdout).strip().splitlines()[:20])]


def self_test(cxx):
    """The checker catches what it should and accepts what it should."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, 'docs'))
        with open(os.path.join(root, 'src.cpp'), 'w', encoding='utf-8') as f:
            f.write('int f(int a) {\n'
                    "    return a * 1'000;  // scaled\n"
                    '}\n'
                    'const char* s = "a  //b";\n')
        good = ('From `src.cpp`:\n\n```cpp\n'
                'int f(int   a)   {   /* a is an int */\n'
                '    // ...\n'
                "    return a*1'000;\n"
                '    ...\n'
                '}\n'
                'const char* s = "a  //b";   // not a comment inside\n'
                '```\n\n'
                '```cpp\nint g() { return 1; }\n```\n'
                'A block that names no source compiles.\n\n'
                '<!-- fragment -->\n```cpp\nanything at all;\n```\n'
                '```cpp\nint h() { return 2; }\n```\n')
        bad = ('```cpp\n}\nint f(int a) {\n```\n(`src.cpp`)\n\n'          # out of order
               '```cpp\nconst char* s = "a //b";\n```\n(`src.cpp`)\n\n'  # string changed
               '```cpp\nint x;\n```\n(`missing.cpp`)\n\n'                # no such file
               '```cpp\nint x;\n```\n(`docs`)\n\n'                       # a directory
               f'```cpp\nint f(int a) {{\n```\n(`{root}/src.cpp`)\n\n'    # absolute: outside the root
               '```cpp\nint f(int a) {\n```\n(`docs/../../src.cpp`)\n\n'  # outside the root
               '```cpp\nint g() { return y; }\n```\n')                   # does not compile
        cases = {'good.md': (good, 0), 'bad.md': (bad, 7)}
        ok = True
        for name, (text, expected) in cases.items():
            with open(os.path.join(root, 'docs', name), 'w', encoding='utf-8') as f:
                f.write(text)
            failures = []
            for block in blocks_of(os.path.join(root, 'docs', name), 'docs/' + name):
                if block.source:
                    failures += check_excerpt(block, root)
                elif not block.fragment:
                    failures += check_compiles(block, cxx, [])
            if len(failures) != expected:
                ok = False
                print(f'self-test: {name}: expected {expected} failure(s), got {len(failures)}')
                for x in failures:
                    print(x)
        ok = self_test_arguments(root, cxx) and ok
    print('self-test passed' if ok else 'self-test FAILED')
    return 0 if ok else 1


def self_test_arguments(root, cxx):
    """A FILE.md argument is found from the current directory, not --root;
    a missing one is refused with exit status 2 before anything is checked."""
    ok, cwd = True, os.getcwd()
    try:
        os.chdir(os.path.join(root, 'docs'))
        # good.md is in the current directory, not in --root.
        for args, expected in ((['good.md'], 0), (['good.md', 'no_such.md'], 2)):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                got = main(['--root', root, '--cxx', cxx] + args)
            if expected == 2 and err.getvalue() != 'check_doc_snippets: no_such.md: no such file\n':
                ok = False
                print(f'self-test: arguments {args}: unexpected message {err.getvalue()!r}')
            if got != expected:
                ok = False
                print(f'self-test: arguments {args}: expected exit status {expected}, got {got}')
    finally:
        os.chdir(cwd)
    return ok


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.dirname(here), help='repository root')
    ap.add_argument('--cxx', default=os.environ.get('CXX', 'c++'), help='host C++ compiler')
    ap.add_argument('--self-test', action='store_true', help='check the checker on made-up pages')
    ap.add_argument('files', nargs='*', help='markdown files (default: README.md docs/*.md)')
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test(args.cxx)
    root = os.path.abspath(args.root)
    if args.files:
        # (path, as printed): named files are the user's, found from the
        # current directory like any command's file arguments.
        files = [(os.path.abspath(md), md) for md in args.files]
        missing = [md for path, md in files if not os.path.isfile(path)]
        for md in missing:
            print(f'check_doc_snippets: {md}: no such file', file=sys.stderr)
        if missing:
            return 2
    else:
        files = [(os.path.join(root, md), md) for md in ['README.md'] + sorted(
            os.path.join('docs', f) for f in os.listdir(os.path.join(root, 'docs')) if f.endswith('.md'))]
    includes = [os.path.join(root, 'include'), os.path.join(root, 'ports', 'posix', 'include')]

    failures, counts = [], {'excerpt': 0, 'fragment': 0, 'compiled': 0}
    for path, shown in files:
        for block in blocks_of(path, shown):
            if block.source:
                counts['excerpt'] += 1
                failures += check_excerpt(block, root)
            elif block.fragment:
                counts['fragment'] += 1
            else:
                counts['compiled'] += 1
                failures += check_compiles(block, args.cxx, includes)
    for f in failures:
        print(f)
    print(f'{counts["excerpt"]} excerpts, {counts["compiled"]} compiled, '
          f'{counts["fragment"]} fragments: {len(failures)} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
