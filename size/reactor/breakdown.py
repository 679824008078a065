#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where the flash bytes of a reactor size program go (docs/footprint.md).

    size/reactor/breakdown.py PROGRAM.elf EMPTY.elf

PROGRAM.elf must be built with -g (line tables do not change the code;
the script checks nothing else). Every flash byte gets one owner:
  1. inside a function symbol of weft::reactors (with what is inlined
     into it: core and std code that only the reactor layer calls) -> reactor;
  2. inside a symbol that the empty firmware also has -> empty;
  3. inside another weft:: / std:: function -> core (port: weft::port);
     a libc/libgcc function -> libc;
  4. inside an application function (main, static constructors, the
     application's own code) -> by its innermost source line (DWARF):
     include/weft/reactor -> reactor, include/weft/core -> core, ports -> port,
     anything else -> application;
  5. constants: weft::reactors symbols and switch tables -> reactor, other
     weft:: -> core; bytes no symbol covers (merged strings, alignment) ->
     'unattributed', counted with the reactor for its upper bound.
"""
import collections, re, subprocess, sys

FLASH = ('.isr_vector', '.text', '.ARM.extab', '.ARM.exidx', '.init_array')


def run(*a):
    return subprocess.run(a, check=True, capture_output=True, text=True).stdout


def flash_ranges(elf):
    out = []
    for l in run('arm-none-eabi-objdump', '-h', elf).splitlines():
        p = l.split()
        if len(p) >= 4 and p[1] in FLASH:
            out.append((int(p[3], 16), int(p[2], 16)))
    return out


def symbols(elf):
    syms = []
    for l in run('arm-none-eabi-nm', '-S', '-C', elf).splitlines():
        p = l.split(None, 3)
        if len(p) == 4:
            syms.append((int(p[0], 16) & ~1, int(p[1], 16), p[2], p[3]))
    return syms


def line_owner(elf):
    owner, cur, seq = {}, None, []
    for line in run('arm-none-eabi-objdump', '--dwarf=decodedline', elf).splitlines():
        if line.endswith(':') and ' ' not in line.strip():
            cur = line[:-1]
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
    return owner


def by_path(p):
    if p is None:
        return 'application'
    if '/include/weft/reactor/' in p:
        return 'reactor'
    if '/include/weft/core/' in p:
        return 'core'
    if '/include/weft/port/' in p or '/ports/' in p:
        return 'port'
    return 'application'


def main():
    elf, empty = sys.argv[1], sys.argv[2]
    empty_names = {s[3] for s in symbols(empty)} - {'main'}
    lines = line_owner(elf)
    owner = {}
    for a, n, k, name in sorted(symbols(elf), key=lambda s: -s[1]):  # small symbols last: they win
        if k in 'bB':
            continue
        code = k in 'tTwW'
        for b in range(a, a + n):
            if name.startswith('weft::reactors::') or name.startswith('CSWTCH'):
                owner[b] = 'reactor'
            elif name in empty_names or name.startswith('weft_'):
                owner[b] = 'empty firmware'
            elif name.startswith('weft::port::'):
                owner[b] = 'port'
            elif name.startswith('weft::') or name.startswith('std::'):
                owner[b] = 'core'
            elif code and b in lines and lines[b] and not lines[b].endswith('.c'):
                owner[b] = by_path(lines[b])
            elif code and (name in ('main',) or name.startswith('_GLOBAL__') or '(anonymous namespace)' in name):
                owner[b] = by_path(lines.get(b))
            else:
                owner[b] = 'libc/libgcc'
    total = collections.Counter()
    for base, size in flash_ranges(elf):
        for b in range(base, base + size):
            total[owner.get(b, 'unattributed (strings, alignment)')] += 1
    for k, v in total.most_common():
        print(f'{v:6d}  {k}')
    print(f'{sum(total.values()):6d}  flash text in all')
    r = total['reactor']
    print(f'reactor runtime: {r} B attributed, {r + total["unattributed (strings, alignment)"]} B upper bound')


if __name__ == '__main__':
    main()
