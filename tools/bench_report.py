#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns benchmark JSON lines (shared/BENCH.md) into a markdown table of
weft against each peer measured in the same run, and optionally a plot.

    bench/run core > results.jsonl
    tools/bench_report.py results.jsonl [--plot docs/core_vs_peers.png]

For each (suite, workload) the table lists every system's median and
p10-p90 spread, and the speed-up of weft over the peer (peer median / weft
median; > 1 means weft is faster). Units other than ns/op are listed
without a ratio.
"""
import argparse
import json
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


def table(rows):
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["suite"], r["workload"]), []).append(r)
    out = ["| suite | workload | system | median | p10–p90 | unit | weft speed-up |",
           "| --- | --- | --- | ---: | ---: | --- | ---: |"]
    for (suite, workload), rs in groups.items():
        weft = next((r for r in rs if r["system"] == "weft"), None)
        for r in rs:
            ratio = ""
            if weft and r is not weft and r["unit"] == weft["unit"] and weft["median"] > 0:
                ratio = f"{r['median'] / weft['median']:.2f}x"
            out.append(f"| {suite} | {workload} | {r['system']} | {r['median']:.3g} | "
                       f"{r['p10']:.3g}–{r['p90']:.3g} | {r['unit']} | {ratio} |")
    return "\n".join(out)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = OrderedDict()
    for r in rows:
        groups.setdefault(r["workload"], []).append(r)
    labels, systems = list(groups), sorted({r["system"] for r in rows})
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(labels)), 4))
    width = 0.8 / max(1, len(systems))
    for i, s in enumerate(systems):
        xs, ys, lo, hi = [], [], [], []
        for j, w in enumerate(labels):
            r = next((r for r in groups[w] if r["system"] == s), None)
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
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--plot")
    a = ap.parse_args()
    rows = load(a.files)
    print(table(rows))
    if a.plot:
        plot(rows, a.plot)


if __name__ == "__main__":
    main()
