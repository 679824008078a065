#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turn bench/batch JSON lines into the plots and tables of docs/batch.md.

usage: tools/batch_report.py RESULTS.jsonl [--phm PHM.jsonl] [--out docs/batch]

Writes <out>/ratio_vs_active_set.png (like seed 000 fig. 4.4: speed-up vs
active set / total cache, one panel per workload) and prints Markdown tables
(best result per workload, like table 4.5; auto-tuner vs best; PHM savings).
"""
import argparse
import json
import os
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def plot(points, out, xkey="cache_ratio", xlabel="active set / total cache", fname="ratio_vs_active_set.png"):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: apt-get install python3-matplotlib", file=sys.stderr)
        return None
    names = sorted({p["workload"] for p in points})
    cols = 3
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.4 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        for mode, style in (("prefetch", "-"), ("no_prefetch", ":")):
            for lanes in sorted({p["lanes"] for p in points if p["workload"] == name}):
                pts = sorted((p[xkey], p["median"], p["p10"], p["p90"]) for p in points
                             if p["workload"] == name and p["mode"] == mode and p["lanes"] == lanes
                             and not p.get("autotuned"))
                if not pts:
                    continue
                x = [a for a, *_ in pts]
                y = [b for _, b, *_ in pts]
                lo = [b - c for _, b, c, _ in pts]
                hi = [d - b for _, b, _, d in pts]
                ax.errorbar(x, y, yerr=[lo, hi], linestyle=style, marker="o", ms=3, capsize=2,
                            label=f"{lanes} lanes{'' if mode == 'prefetch' else ', no prefetch'}")
        for p in points:
            if p["workload"] == name and p.get("autotuned"):
                ax.plot([p[xkey]], [p["median"]], "k*", ms=12, label="auto-tuned")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("sequential / interleaved")
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=6)
    fig.tight_layout()
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, fname)
    fig.savefig(path, dpi=90)
    return path


def tables(points, machine):
    print(f"Machine: {machine.get('target')}, L1d {machine.get('l1d_bytes', 0) >> 10} KiB, "
          f"L2 {machine.get('l2_bytes', 0) >> 10} KiB, L3 {machine.get('l3_bytes', 0) >> 10} KiB "
          f"(from {machine.get('cache_source')}); metric {machine.get('metric')}; "
          f"perf_event_open: {machine.get('perf_event_open')} ({machine.get('perf_why') or 'ok'})\n")
    print("| workload | best ratio (p10-p90) | mode | lanes | step bytes | active set / cache |")
    print("|---|---|---|---|---|---|")
    for name in sorted({p["workload"] for p in points}):
        cand = [p for p in points if p["workload"] == name and not p.get("autotuned")]
        b = max(cand, key=lambda p: p["median"])
        print(f"| {name} | {b['median']:.2f}x ({b['p10']:.2f}-{b['p90']:.2f}) | {b['mode']} | {b['lanes']} | "
              f"{b['step_bytes']} | {b['cache_ratio']:.2g} |")
    print("\nThe best point's active set normalised by each cache level, and the other reading of the thesis' "
          "definition (lanes x bytes of a whole work item):\n")
    print("| workload | active set bytes | / L1 | / L2 | / total | lanes x item bytes / total |")
    print("|---|---|---|---|---|---|")
    for name in sorted({p["workload"] for p in points}):
        cand = [p for p in points if p["workload"] == name and not p.get("autotuned")]
        b = max(cand, key=lambda p: p["median"])
        if "l1_ratio" in b:
            print(f"| {name} | {b['active_set_bytes']} | {b['l1_ratio']:.3g} | {b['l2_ratio']:.3g} | "
                  f"{b['cache_ratio']:.2g} | {b['item_active_set_ratio']:.3g} |")
    print("\n| workload | auto-tuner choice | tuned ratio (p10-p90) | sweep best (mode), re-measured | tuned / best | samples | capped | tuning s |")
    print("|---|---|---|---|---|---|---|---|")
    for p in points:
        if p.get("autotuned"):
            choice = (f"{p.get('tuned_mode', p['mode'])}, {p['lanes']} lanes x {p['step_bytes']} B"
                      if p.get("interleave", True) else
                      f"sequential (best interleaved {p.get('best_interleaved_remeasured', 0):.2f}x)")
            print(f"| {p['workload']} | {choice} | {p['median']:.2f}x ({p['p10']:.2f}-{p['p90']:.2f}) | "
                  f"{p['sweep_best_remeasured']:.2f}x ({p.get('sweep_best_mode', '?')}; sweep max {p['sweep_best']:.2f}x) | "
                  f"{100 * p['vs_best']:.0f}% | {p['trials']} | {p.get('capped', 0)} | {p['tune_seconds']:.1f} |")


def phm_table(rows):
    print("\n| S | M | F | data KiB | sequential us | best interleaved us (lanes, rows/step) | interleaved saving "
          "| tuner calibrated | tuner choice | saving of the choice |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        kib = r["sensors"] * r["measurements"] * r["features"] * 2 // 1024
        inter = r.get("interleaved_saving", r["saving"])
        print(f"| {r['sensors']} | {r['measurements']} | {r['features']} | {kib} | {r['sequential_ns'] / 1e3:.1f} | "
              f"{r['interleaved_ns'] / 1e3:.1f} ({r['lanes']}, {r['rows_per_step']}) | {100 * inter:+.1f}% | "
              f"{r.get('calibrated', 0):.2f}x | {r.get('tuner_choice', 'interleaved')} | {100 * r['saving']:+.1f}% |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--phm")
    ap.add_argument("--out", default="docs/batch")
    a = ap.parse_args()
    rows = load(a.results)
    machine = next((r for r in rows if r.get("workload") == "machine"), {})
    points = [r for r in rows if r.get("unit") == "ratio" and "cache_ratio" in r]
    path = plot(points, a.out)
    if path:
        print(f"![speed-up vs active set]({os.path.relpath(path, 'docs')})\n")
    if points and "l1_ratio" in points[0]:
        path = plot(points, a.out, "l1_ratio", "active set / L1d", "ratio_vs_active_set_l1.png")
        if path:
            print(f"![speed-up vs active set / L1]({os.path.relpath(path, 'docs')})\n")
    tables(points, machine)
    if a.phm:
        phm_table([r for r in load(a.phm) if r.get("workload") == "phm_gateway"])


if __name__ == "__main__":
    main()
