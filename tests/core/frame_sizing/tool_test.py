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
# A name with a control character would end the header's comment line (a
# newline in it put the rest of the name on a line of its own, which does
# not compile); weft prints every number as a 32-bit unsigned, so a larger
# one is no report of weft's (1e23 became an out-of-range constant).
refused(f'{FRAME}\n{SMALL}\n'.replace('"a"', '"sle\\nep"'), "stdin:1: frame 'sle\\nep': the name holds a control character")
refused(SMALL.replace('"small"', '"sm\\u0007all"'), "stdin:1: pool 'sm\\x07all': the name holds a control character")
refused(f'{FRAME}\n' + SMALL.replace('128', '100000000000000000000000'),
        "stdin:2: pool 'small': 'slot_bytes' is 100000000000000000000000, more than weft reports (limit 4294967295)")
refused(FRAME.replace('100', '4294967296') + '\n' + SMALL, "stdin:1: frame 'a': 'bytes' is 4294967296")
rc, out, err = run(FRAME.replace('100', '4294967295') + '\n' + SMALL)
assert rc == 0 and 'x1' in out, out + err  # the largest 32-bit count is one


# A namespace that is a C++ keyword is no namespace name.
def refused_namespace(ns, needle):
    p = subprocess.run([sys.executable, TOOL, '--namespace', ns], input=f'{FRAME}\n{SMALL}\n',
                       capture_output=True, text=True)
    assert p.returncode != 0 and not p.stdout and needle in p.stderr, f'{ns}: {p.stdout}{p.stderr}'


refused_namespace('class', "--namespace 'class': 'class' is a C++ keyword")
refused_namespace('app::co_await', "'co_await' is a C++ keyword")
refused_namespace('and', "'and' is a C++ keyword")
p = subprocess.run([sys.executable, TOOL, '--namespace', 'app::classes'], input=f'{FRAME}\n{SMALL}\n',
                   capture_output=True, text=True)
assert p.returncode == 0 and 'namespace app::classes {' in p.stdout, p.stderr
print('frame_report_to_header: 16 checks passed')
