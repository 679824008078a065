#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/frame_report_to_header refuses a report it cannot trust, naming
the line or the pool, instead of writing a header that misses a pool or
sizes one to 0 bytes."""
import subprocess
import sys

TOOL = sys.argv[1]
FRAME = '{"frame":"a","bytes":100,"created":1}'
SMALL = '{"pool":"small","slot_bytes":128,"slots":4,"peak":2,"failures":0,"largest_request":100}'


def run(report):
    p = subprocess.run([sys.executable, TOOL], input=report, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def refused(report, *needles):
    rc, out, err = run(report)
    assert rc != 0 and not out, f'accepted: {report!r}\n{out}'
    for n in needles:
        assert n in err, f'{n!r} not in {err!r}'


rc, out, err = run(f'console noise\n{FRAME}\n{SMALL}\n')
assert rc == 0 and 'small_slot_bytes = 104;' in out and 'small_slots = 2;' in out, out + err

refused(f'{FRAME}\n{SMALL}\n{{"pool":"big","slot_bytes":1024,"slots":2,"peak":2,"fail\n',
        'stdin:3: malformed report line')
refused(f'{SMALL}{FRAME}\n', 'stdin:1: malformed report line')  # two records run together
refused('{"pool":"small","slot_bytes":128}\n', "stdin:1: pool 'small': 'slots' missing")
refused('{"pool":"small","slot_bytes":"128","slots":1,"peak":1,"failures":0,"largest_request":8}\n',
        "'slot_bytes' missing or not a count")
refused('{"thread":"x"}\n', 'neither a frame nor a pool record')
refused('{"pool":"small","slot_bytes":256,"slots":2,"peak":1,"failures":0,"largest_request":848}\n',
        "pool 'small' was used (peak 1) but the report holds no frame size that fits it")
refused('', 'no {"pool":...} lines')
print('frame_report_to_header: 8 checks passed')
