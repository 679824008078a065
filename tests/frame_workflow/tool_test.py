#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/frame_report_to_header on the reports a product's runs give: a
frame table that was full, the report printed twice, two pools with one
name, a pool the run never used."""
import subprocess
import sys

TOOL = sys.argv[1]


def frame(name, size, created=1):
    return f'{{"frame":"{name}","bytes":{size},"created":{created}}}\n'


def pool(name, slot, slots, peak, largest, failures=0):
    return (f'{{"pool":"{name}","slot_bytes":{slot},"slots":{slots},"peak":{peak},'
            f'"failures":{failures},"largest_request":{largest}}}\n')


def run(report, *args):
    p = subprocess.run([sys.executable, TOOL, *args], input=report, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def refused(report, needle, *args):
    rc, out, err = run(report, *args)
    assert rc != 0 and not out and needle in err, f'{report!r} {args}: rc {rc}\n{out}{err}'


def accepted(report, *needles, args=()):
    rc, out, err = run(report, *args)
    assert rc == 0, f'{report!r}: {err}'
    for n in needles:
        assert n in out, f'{n!r} not in\n{out}'
    return out


two = frame('a', 100) + frame('b', 600)
pools = pool('small', 128, 4, 2, 600) + pool('big', 1024, 4, 1, 600)

# A table as full as WEFT_FRAME_REPORT_ENTRIES (--entries, default 48) may
# have dropped coroutines: refused. One entry to spare: accepted.
refused(two + pools, 'WEFT_FRAME_REPORT_ENTRIES=2', '--entries', '2')
accepted(two + pools, 'small_slot_bytes = 104;', args=('--entries', '3'))
refused(''.join(frame(f'f{i}', 64) for i in range(48)) + pool('p', 64, 2, 1, 64), 'WEFT_FRAME_REPORT_ENTRIES=48')

# Printed at two points of one run: one set of constants, the larger peak.
first = two + pool('small', 128, 4, 1, 600) + pool('big', 1024, 4, 1, 600)
second = frame('a', 100, 3) + frame('b', 600, 2) + frame('c', 120) + pool('small', 128, 4, 3, 600) + pools.split('\n')[1] + '\n'
out = accepted('boot\n' + first + 'later\n' + second, 'small_slots = 3;', 'big_slots = 1;', 'small_slot_bytes = 120;')
assert out.count('small_slots') == 1 and 'x3' in out, out

# Reports with no frame line (the frame table compiled out) merge too: one
# ends at a line between records, or where its pools begin again in the
# same order and shapes.
bare = pool('a', 64, 2, 1, 40) + pool('b', 128, 2, 0, 0)
again = pool('a', 64, 2, 2, 40) + pool('b', 128, 2, 0, 0)
for log in (bare + 'test output\n' + again, bare + again, bare + '\n' + again + again):
    out = accepted(log, 'a_slots = 2;', 'a_slot_bytes = 40;', 'b_slots = 1;')
    assert out.count('a_slots') == 1, out
accepted(pool('a', 64, 2, 1, 40) + pool('a', 64, 2, 3, 40), 'a_slots = 3;')  # one pool, printed twice

# Two pools of one name in one report: the header could size only one.
refused(bare + pool('a', 64, 2, 1, 40), "stdin:3: two pools are named 'a'")
refused(pool('app', 128, 4, 1, 100) + pool('app', 1024, 4, 1, 100), "two pools are named 'app'")
refused(two + pool('app', 128, 4, 1, 600) + pool('app', 1024, 4, 1, 600), "two pools are named 'app'")
# The same name with another shape later in the log: two builds' reports.
refused(two + pools + two + pool('small', 256, 4, 1, 600), "pool 'small' is 4 x 256 B here but 4 x 128 B")

# A pool the run never used keeps one slot that fits no frame (not one
# that would take frames a smaller pool has no room for).
accepted(frame('a', 100) + pool('small', 128, 4, 2, 100) + pool('big', 1024, 4, 0, 0),
         'big_slot_bytes = 8;', 'big_slots = 1;', 'small_slots = 2;')

# One name, two frame sizes (coroutine lambdas are all "operator()"): the
# line carries the larger frame; the small pool's largest_request (weft
# counts only the frames a pool was asked to hold) gives its slot size.
accepted(frame('operator()', 600) + frame('a', 40) + pool('small', 128, 4, 2, 100) + pool('big', 1024, 4, 1, 600),
         'small_slot_bytes = 104;', 'big_slot_bytes = 600;')

# The header lands in the product's tree: no licence line unless asked for.
plain = accepted(two + pools, '#pragma once')
assert plain.startswith('#pragma once') and 'SPDX' not in plain, plain
tagged = accepted(two + pools, '#pragma once', args=('--spdx', 'MIT'))
assert tagged.startswith('// SPDX-License-Identifier: MIT\n#pragma once'), tagged
print('frame_report_to_header: workflow checks passed')
