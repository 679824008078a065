#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Markdown table of csp results: bench/csp/table.py RESULTS.jsonl...

Each file (or one file with several invocations appended) holds the JSON
lines of `bench/run csp`. For each (workload, system) the cell is the
median over invocations of the per-invocation median, with the p10-p90 of
those medians; the ratio columns are peer / weft (above 1: weft is faster).
The last two columns pair each invocation's embassy median with the same
invocation's weft median (GCC and Clang builds) and give the median of
those per-invocation ratios with their range: on a shared host the load
changes between invocations more than within one, so the paired ratio is
the steadier figure. Lines with "valid": false are reported and left out.
"""
import json
import statistics
import sys

SYSTEMS = ["weft", "weft_clang", "boost_fiber", "std_thread", "embassy"]
ORDER = ["pingpong_rendezvous", "throughput_buffered", "choose_8", "savina_pingpong",
         "savina_counting", "savina_threadring", "savina_throughput", "savina_chameneos", "savina_big"]


def pct(v, q):
    v = sorted(v)
    i = q * (len(v) - 1)
    lo = int(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def main(paths):
    cells, ops, runs = {}, {}, {}
    for p in paths:
        for line in open(p):
            line = line.strip()
            if not line.startswith("{"):
                continue
            d = json.loads(line)
            if d.get("suite") != "csp":
                continue
            if not d.get("valid", True):
                print(f"invalid (checksum): {d['workload']}/{d['system']}", file=sys.stderr)
                # Keep its place: the paired ratios pair invocation i with
                # invocation i, which a dropped line would shift.
                runs.setdefault((d["workload"], d["system"]), []).append(None)
                continue
            cells.setdefault((d["workload"], d["system"]), []).append(d["median"])
            runs.setdefault((d["workload"], d["system"]), []).append(d["median"])
            ops[d["workload"]] = d.get("op", "op")
    n = max((len(v) for v in cells.values()), default=0)
    peers = ["boost_fiber", "std_thread", "embassy"]
    print("| workload (ns per) | " + " | ".join(SYSTEMS) + " | " + " | ".join(f"{p} / weft" for p in peers)
          + " | embassy / weft_clang | embassy / weft, paired | embassy / weft_clang, paired |")
    print("|---" * (len(SYSTEMS) + len(peers) + 4) + "|")
    for w in ORDER:
        row, med = [f"{w} ({ops.get(w, 'op')})"], {}
        for s in SYSTEMS:
            v = cells.get((w, s))
            if not v:
                row.append("not run")
                continue
            med[s] = statistics.median(v)
            row.append(f"{med[s]:.1f} ({pct(v, 0.1):.1f}–{pct(v, 0.9):.1f})" if len(v) > 1 else f"{med[s]:.1f}")
        for s, base in [(p, "weft") for p in peers] + [("embassy", "weft_clang")]:
            row.append(f"{med[s] / med[base]:.2f}x" if s in med and base in med else "–")
        for base in ["weft", "weft_clang"]:
            e, b = runs.get((w, "embassy"), []), runs.get((w, base), [])
            # Invocation i of each (same order in the file); a pair with an
            # invalid side has no ratio.
            r = [x / y for x, y in zip(e, b) if x is not None and y is not None]
            row.append(f"{statistics.median(r):.2f}x ({min(r):.2f}–{max(r):.2f})" if r else "–")
        print("| " + " | ".join(row) + " |")
    print(f"\n{n} invocation(s); cells: median of the per-invocation medians (p10–p90 across invocations).")


if __name__ == "__main__":
    main(sys.argv[1:])
