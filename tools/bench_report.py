#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Turns benchmark JSON lines (shared/BENCH.md) into a markdown table of
weft against each peer measured in the same run, and optionally a plot.

    bench/run core > results.jsonl
    tools/bench_report.py results.jsonl [--plot docs/core_vs_peers.png]

For each (suite, workload) the table lists every system's median and
p10-p90 spread, and the speed-up of weft over the peer (peer median / weft
median; > 1 means weft is faster), for units where lower is better
(ns/op, instr/op); rows in other units are listed without a ratio.

Several invocations may be concatenated (the shared machines vary between
processes more than within one): each (suite, workload, system, workers)
then shows the median of the invocations' medians, the range of those
medians, and how many invocations there were. The shebang is Debian's
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
                    rows.append(json.loads(line))
    return rows


def key(r):
    return (r["suite"], r["workload"], r["system"], r.get("workers"), r.get("unit"))


def aggregate(rows):
    """One row per (suite, workload, system, workers): median of medians,
    p10/p90 replaced by the range of the invocations' medians when there
    are several invocations."""
    seen = OrderedDict()
    for r in rows:
        seen.setdefault(key(r), []).append(r)
    out = []
    for rs in seen.values():
        if len(rs) == 1:
            out.append(dict(rs[0], invocations=1))
            continue
        meds = sorted(r["median"] for r in rs)
        r = dict(rs[0])
        r["median"] = statistics.median(meds)
        r["p10"], r["p90"] = meds[0], meds[-1]
        r["invocations"] = len(rs)
        out.append(r)
    return out


def system_label(r):
    return r["system"] + (f" ({r['workers']} workers)" if r.get("workers") else "")


LOWER_IS_BETTER = {"ns/op", "instr/op"}


def table(rows):
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["suite"], r["workload"]), []).append(r)
    out = ["| suite | workload | system | median | spread | runs | unit | weft speed-up |",
           "| --- | --- | --- | ---: | ---: | ---: | --- | ---: |"]
    for (suite, workload), rs in groups.items():
        # The baseline is weft's first row (one worker where there are several).
        weft = next((r for r in rs if r["system"] == "weft"), None)
        for r in rs:
            ratio = ""
            if (weft and r is not weft and r["unit"] == weft["unit"] and weft["unit"] in LOWER_IS_BETTER
                    and weft["median"] > 0):
                ratio = f"{r['median'] / weft['median']:.2f}x"
            spread = "medians " if r["invocations"] > 1 else "p10–p90 "
            out.append(f"| {suite} | {workload} | {system_label(r)} | {r['median']:.3g} | "
                       f"{spread}{r['p10']:.3g}–{r['p90']:.3g} | {r['invocations']} | {r['unit']} | {ratio} |")
    return "\n".join(out)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = OrderedDict()
    for r in rows:
        groups.setdefault(r["workload"], []).append(r)
    labels, systems = list(groups), sorted({system_label(r) for r in rows})
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(labels)), 4))
    width = 0.8 / max(1, len(systems))
    for i, s in enumerate(systems):
        xs, ys, lo, hi = [], [], [], []
        for j, w in enumerate(labels):
            r = next((r for r in groups[w] if system_label(r) == s), None)
            if r:
                xs.append(j + i * width)
                ys.append(r["median"])
                lo.append(r["median"] - r["p10"])
                hi.append(r["p90"] - r["median"])
        ax.bar(xs, ys, width, yerr=[lo, hi], label=s, capsize=2)
    ax.set_xticks([j + width * (len(systems) - 1) / 2 for j in range(len(labels))])
    ax.set_xticklabels(labels, rotation=20, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel(rows[0]["unit"] + " (log, lower is better)")
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
