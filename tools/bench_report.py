#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Turns benchmark JSON lines (shared/BENCH.md) into a markdown table of
weft against each peer measured in the same run, and optionally a plot.

    bench/run core > results.jsonl
    tools/bench_report.py results.jsonl [--plot docs/core_vs_peers.png]

For each (suite, workload) the table lists every system's median and
p10-p90 spread, and the speed-up of weft over the peer (peer median / weft
median; > 1 means weft is faster), for units where lower is better
(ns/op, instr/op); rows in other units are listed without a ratio: a
paired run's line (unit "ratio", bench/core/core_paired) is itself the
peer/weft ratio of runs taken side by side, named "weft / PEER".

Several invocations may be concatenated (the shared machines vary between
processes more than within one): each (suite, workload, system, workers,
target) then shows the median of the invocations' medians, the range of
those medians, and how many invocations there were (and of how many runs
each). Rows of different targets (one bench/run-target-core invocation
measures cortex-m4 and cortex-m3) are never merged, and weft's row of the
same target is each peer's baseline. The shebang is Debian's
python3, which has python3-matplotlib (tools/install-deps bench).
"""
import argparse
import json
import statistics
import sys
from collections import OrderedDict


def load(paths):
    rows = []
    for p in paths:
        with (sys.stdin if p == "-" else open(p)) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    r = json.loads(line)
                    # A run whose checksum did not match did not do the work
                    # ("valid": csp, "ok": reactor): no number in the table.
                    if r.get("valid", True) is False or r.get("ok", True) is False:
                        print(f"left out (checksum): {r.get('suite')}/{r.get('workload')}/{r.get('system')}",
                              file=sys.stderr)
                        continue
                    rows.append(r)
    return rows


def key(r):
    # The target too: one bench/run-target-core prints the same workload for
    # two boards, whose counts are two facts, not two samples of one.
    # The baseline too: a paired run (bench/core/core_paired) prints one
    # ratio line per peer, all under weft's name.
    return (r["suite"], r["workload"], r["system"], r.get("workers"), r.get("unit"), r.get("target"),
            r.get("baseline"))


def aggregate(rows):
    """One row per (suite, workload, system, workers, unit, target): median
    of medians, p10/p90 replaced by the range of the invocations' medians
    when there are several invocations; `runs_seen` keeps each invocation's
    run count."""
    seen = OrderedDict()
    for r in rows:
        seen.setdefault(key(r), []).append(r)
    out = []
    for rs in seen.values():
        if len(rs) == 1:
            out.append(dict(rs[0], invocations=1, runs_seen=[rs[0].get("runs")]))
            continue
        meds = sorted(r["median"] for r in rs)
        r = dict(rs[0])
        r["median"] = statistics.median(meds)
        r["p10"], r["p90"] = meds[0], meds[-1]
        r["invocations"] = len(rs)
        r["runs_seen"] = [x.get("runs") for x in rs]
        out.append(r)
    return out


def system_label(r):
    label = r["system"] + (f" ({r['workers']} workers)" if r.get("workers") else "")
    return label + (f" / {r['baseline']}" if r.get("baseline") else "")


def runs_label(r):
    """'invocations x runs of each', e.g. '3 × 5' or '1 × 15'."""
    runs = sorted({x for x in r["runs_seen"] if x is not None})
    each = "?" if not runs else str(runs[0]) if len(runs) == 1 else f"{runs[0]}–{runs[-1]}"
    return f"{r['invocations']} × {each}"


LOWER_IS_BETTER = {"ns/op", "instr/op"}


def table(rows):
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["suite"], r["workload"], r.get("target")), []).append(r)
    out = ["| suite | workload | target | system | median | spread | invocations × runs | unit | weft speed-up |",
           "| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: |"]
    for (suite, workload, target), rs in groups.items():
        # The baseline is weft's first row (one worker where there are several).
        weft = next((r for r in rs if r["system"] == "weft"), None)
        for r in rs:
            ratio = ""
            if (weft and r is not weft and r["unit"] == weft["unit"] and weft["unit"] in LOWER_IS_BETTER
                    and weft["median"] > 0):
                ratio = f"{r['median'] / weft['median']:.2f}x"
            spread = "medians " if r["invocations"] > 1 else "p10–p90 "
            out.append(f"| {suite} | {workload} | {target or ''} | {system_label(r)} | {r['median']:.3g} | "
                       f"{spread}{r['p10']:.3g}–{r['p90']:.3g} | {runs_label(r)} | {r['unit']} | {ratio} |")
    return "\n".join(out)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Times and counts only: a ratio (a paired run's line) is not on their scale.
    rows = [r for r in rows if r["unit"] in LOWER_IS_BETTER]
    # A bar per (system, target) and a group per (suite, workload), named
    # as briefly as the rows allow: with one series per name, a second
    # board's or suite's row would be dropped, not drawn.
    several_suites = len({r["suite"] for r in rows}) > 1
    several_targets = len({r.get("target") for r in rows}) > 1

    def series(r):
        return system_label(r) + (f" [{r.get('target')}]" if several_targets else "")

    def group(r):
        return f"{r['suite']}/{r['workload']}" if several_suites else r["workload"]

    groups = OrderedDict()
    for r in rows:
        groups.setdefault(group(r), []).append(r)
    labels, systems = list(groups), sorted({series(r) for r in rows})
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(labels)), 4))
    width = 0.8 / max(1, len(systems))
    for i, s in enumerate(systems):
        xs, ys, lo, hi = [], [], [], []
        for j, w in enumerate(labels):
            r = next((r for r in groups[w] if series(r) == s), None)
            if r:
                xs.append(j + i * width)
                ys.append(r["median"])
                lo.append(r["median"] - r["p10"])
                hi.append(r["p90"] - r["median"])
        ax.bar(xs, ys, width, yerr=[lo, hi], label=s, capsize=2)
    ax.set_xticks([j + width * (len(systems) - 1) / 2 for j in range(len(labels))])
    ax.set_xticklabels(labels, rotation=20, ha="right")
    ax.set_yscale("log")
    units = list(OrderedDict.fromkeys(r["unit"] for r in rows))
    ax.set_ylabel(", ".join(units) + " (log, lower is better)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))  # outside: never over a bar
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--plot")
    a = ap.parse_args()
    rows = aggregate(load(a.files))
    print(table(rows))
    if a.plot:
        plot(rows, a.plot)


if __name__ == "__main__":
    main()
