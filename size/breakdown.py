#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where the flash bytes of a size program go, by layer (docs/footprint.md).

    size/breakdown.py PROGRAM.elf EMPTY.elf [--strings]

PROGRAM.elf must be built with -g (line tables do not change the code).
Every flash byte gets one owner:
  1. inside a function symbol of weft::reactors / weft::csp (with what is
     inlined into it: core and std code that only that layer calls) ->
     reactor / csp;
  2. inside a symbol that the empty firmware also has -> empty firmware;
  3. inside weft::port:: -> port; another weft:: or std:: symbol -> core;
     a libc/libgcc function -> libc/libgcc;
  4. inside an application function (main, static constructors, the
     application's own code) -> by its innermost source line (DWARF):
     include/weft/<layer> -> that layer, ports -> port, else application;
  5. bytes no symbol covers are constants merged by the linker (strings).
     A string belongs to whoever wrote it: if the empty firmware has the
     same string, to the empty firmware; else to the owners of the source
     files (those with code in PROGRAM.elf's line table) that hold it as a
     string literal (comments ignored, adjacent literals joined): the
     application's names are the application's, a layer's messages that
     layer's, wherever the code that loads them was inlined. A string
     written in several owners' sources, or in none (e.g. libc's), goes to
     the owner of the code whose literal pool points at it. What nothing
     points at (alignment) stays 'unattributed'.
A layer's runtime is its own row; the bound printed for each layer adds
the unattributed bytes, as if all of them were its own.
"""
import collections, re, struct, subprocess, sys

FLASH = ('.isr_vector', '.text', '.ARM.extab', '.ARM.exidx', '.init_array')
LAYERS = ('reactor', 'csp', 'core', 'port')
UNATTRIBUTED = 'unattributed (alignment)'


def run(*a):
    return subprocess.run(a, check=True, capture_output=True, text=True).stdout


def flash_sections(elf):
    out = []
    for l in run('arm-none-eabi-objdump', '-h', elf).splitlines():
        p = l.split()
        if len(p) >= 6 and p[1] in FLASH:
            out.append((int(p[3], 16), int(p[2], 16), int(p[5], 16)))  # vma, size, file offset
    return out


def symbols(elf):
    syms = []
    for l in run('arm-none-eabi-nm', '-S', '-C', elf).splitlines():
        p = l.split(None, 3)
        if len(p) == 4:
            syms.append((int(p[0], 16) & ~1, int(p[1], 16), p[2], p[3]))
    return syms


def line_owner(elf):
    owner, cur, seq, files = {}, None, [], set()
    for line in run('arm-none-eabi-objdump', '--dwarf=decodedline', elf).splitlines():
        if line.endswith(':') and ' ' not in line.strip():
            cur = line[:-1]
            files.add(cur)
            continue
        m = re.match(r'^(\S+)\s+(\d+|-)\s+(0x[0-9a-f]+)', line)
        if not m:
            continue
        a = int(m.group(3), 16)
        seq.append((a, None if m.group(2) == '-' else cur))
        if m.group(2) == '-':
            for (x, f), (y, _) in zip(seq, seq[1:]):
                for b in range(x, y):
                    owner[b] = f
            seq = []
    return owner, files


def by_path(p):
    if p is None:
        return 'application'
    for layer in LAYERS:
        if f'/include/weft/{layer}/' in p:
            return layer
    if '/ports/' in p:
        return 'port'
    return 'application'


# Comments, string literals, character literals, everything else.
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|\s+|[^"\'/\s]+|/', re.S)


def literals(path):
    """The string literals of a C/C++ source file, adjacent ones joined."""
    try:
        text = open(path, encoding='utf-8', errors='replace').read()
    except OSError:
        return set()
    out, cur, prefix, code = set(), None, '', ''
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if t.startswith('"'):
            body = t[1:-1].encode('latin-1', 'replace').decode('unicode_escape', 'replace')
            if cur is None:
                # WEFT_ASSERT(cond, "text") stores "weft: text" (port/port.hpp).
                prefix = 'weft: ' if re.search(r'WEFT_ASSERT\([^;]*,\s*$', code[-200:]) else ''
            cur = body if cur is None else cur + body
        elif t.isspace() or t.startswith('//') or t.startswith('/*'):
            continue
        else:
            if cur is not None:
                out.add(prefix + cur)
            cur = None
        code += t if not t.startswith('"') else '""'
    if cur is not None:
        out.add(prefix + cur)
    return out


def literal_owners(paths):
    """String text -> the owners whose sources write it as a literal."""
    owners = collections.defaultdict(set)
    for p in paths:
        if not p.startswith('/') or p.startswith('/usr/'):
            continue  # toolchain headers: not an owner's source
        for s in literals(p):
            owners[s].add(by_path(p))
    return owners


def flash_image(elf):
    image = {}
    with open(elf, 'rb') as f:
        blob = f.read()
    for base, size, off in flash_sections(elf):
        for i in range(size):
            image[base + i] = blob[off + i]
    return image


def pointers_to_uncovered(image, owner):
    """Address -> owner of the first owned, aligned word that points there
    (literal pools and tables), for addresses that no symbol covers."""
    pointed = {}
    for a in sorted(image):
        if a % 4 == 0 and a in owner and all(a + i in image for i in range(4)):
            target = struct.unpack('<I', bytes(image[a + i] for i in range(4)))[0]
            if target in image and target not in owner:
                pointed.setdefault(target, owner[a])
    return pointed


def strings_at(image, owner, pointed):
    """(start, end, text) of each uncovered NUL-terminated string that a
    pointer reaches at its start (a tail reached inside a longer string
    is part of that string); end is the NUL's address."""
    out, taken = [], set()
    for start in sorted(pointed):
        if start in taken:
            continue
        b = start
        while b in image and b not in owner and image[b] != 0:
            b += 1
        if b == start or b in owner or b not in image:
            continue  # not a string (or an empty one)
        taken.update(range(start, b + 1))
        out.append((start, b, bytes(image[x] for x in range(start, b)).decode('ascii', 'replace')))
    return out


def by_name(name):
    if name.startswith('weft::reactors::'):
        return 'reactor'
    if name.startswith('weft::csp::'):
        return 'csp'
    if name.startswith('weft::port::'):
        return 'port'
    if name.startswith('weft::') or name.startswith('std::'):
        return 'core'
    return None


def breakdown(elf, empty):
    """(bytes per owner, [(owner, string)]) for PROGRAM.elf against EMPTY.elf."""
    empty_names = {s[3] for s in symbols(empty)} - {'main'}
    lines, files = line_owner(elf)
    owner = {}
    for a, n, k, name in sorted(symbols(elf), key=lambda s: -s[1]):  # small symbols last: they win
        if k in 'bB':
            continue
        code = k in 'tTwW'
        for b in range(a, a + n):
            if name.startswith('CSWTCH'):  # switch tables of reactor code (none elsewhere today)
                owner[b] = 'reactor'
            elif name in empty_names or name.startswith('weft_'):
                owner[b] = 'empty firmware'
            elif by_name(name):
                owner[b] = by_name(name)
            elif code and b in lines and lines[b] and not lines[b].endswith('.c'):
                owner[b] = by_path(lines[b])
            elif code and (name == 'main' or name.startswith('_GLOBAL__') or '(anonymous namespace)' in name):
                owner[b] = by_path(lines.get(b))
            else:
                owner[b] = 'libc/libgcc'

    # Constants nobody's symbol covers (merged strings): see rule 5.
    image = flash_image(elf)
    pointed = pointers_to_uncovered(image, owner)
    empty_image = flash_image(empty)
    empty_owner = {b: 'empty' for a, n, k, _ in symbols(empty) if k not in 'bB' for b in range(a, a + n)}
    empty_strings = {text for _, _, text in strings_at(empty_image, empty_owner,
                                                       pointers_to_uncovered(empty_image, empty_owner))}
    written = literal_owners(files)
    order = LAYERS + ('application',)
    strings = []
    for start, end, text in strings_at(image, owner, pointed):
        who = pointed[start]
        if text in empty_strings:
            who = 'empty firmware'
        elif written.get(text) and who not in written[text]:
            who = min(written[text], key=order.index)
        for x in range(start, end + 1):
            owner[x] = who
        strings.append((who, text))

    total = collections.Counter()
    for base, size, _ in flash_sections(elf):
        for b in range(base, base + size):
            total[owner.get(b, UNATTRIBUTED)] += 1
    return total, strings


def main():
    args = [a for a in sys.argv[1:] if a != '--strings']
    total, strings = breakdown(args[0], args[1])
    for k, v in total.most_common():
        print(f'{v:6d}  {k}')
    print(f'{sum(total.values()):6d}  flash text in all')
    if '--strings' in sys.argv:
        for who, text in sorted(strings):
            print(f'  string {len(text) + 1:4d} B  {who:12s} {text!r}')
    for layer in LAYERS:
        if total[layer]:
            print(f'{layer} runtime: {total[layer]} B, at most {total[layer] + total[UNATTRIBUTED]} B')


if __name__ == '__main__':
    main()
