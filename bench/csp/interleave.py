#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Interleaved comparison of csp benchmark builds against a reference peer.

    bench/csp/interleave.py [--full] ROUNDS WORKLOAD[,WORKLOAD...] BINARY... REFERENCE

Each round runs every binary once per workload (`BINARY [--quick] WORKLOAD`,
one JSON line each), the reference last. On a shared host the load changes
from one second to the next more than within one, so a ratio of two runs
taken in the same round is steadier than a ratio of medians taken minutes
apart. Prints, per (workload, binary), the median over rounds of the run's
median ns/op with its range, and the median and range over rounds of
REFERENCE / BINARY (above 1: the binary is faster). Binaries are the
csp_weft builds (bench/csp/run leaves them in build/bench-csp*) and the
peers' programs (bench/peers/embassy/target/release/weft-peer-embassy).
"""
import json
import statistics
import subprocess
import sys


def run(binary, workload, quick):
    args = [binary] + (["--quick"] if quick else []) + [workload]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            if not d.get("valid", True):
                sys.exit(f"{binary} {workload}: invalid checksum")
            return d["median"]
    sys.exit(f"{binary} {workload}: no result line")


def main(argv):
    quick = "--full" not in argv
    argv = [a for a in argv if a != "--full"]
    if len(argv) < 4:
        sys.exit(__doc__)
    rounds, workloads, binaries = int(argv[0]), argv[1].split(","), argv[2:]
    medians = {}
    for _ in range(rounds):
        for w in workloads:
            for b in binaries:
                medians.setdefault((w, b), []).append(run(b, w, quick))
    for w in workloads:
        ref = medians[(w, binaries[-1])]
        for b in binaries:
            v = medians[(w, b)]
            r = [x / y for x, y in zip(ref, v)]
            print(f"{w:20s} {b:60s} {statistics.median(v):9.2f} ns [{min(v):.2f}-{max(v):.2f}]"
                  f"  ref/this {statistics.median(r):.2f}x [{min(r):.2f}-{max(r):.2f}]")


if __name__ == "__main__":
    main(sys.argv[1:])
