#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turn bench/batch JSON lines into the plots and tables of docs/batch.md.

usage: tools/batch_report.py RESULTS.jsonl [--phm PHM.jsonl] [--out docs/batch]

Writes, under <out>:
  ratio_vs_active_set.png     like seed 000 fig. 4.4b: speed-up vs per-step
                              active set / total cache (1e-5 .. 20x), one
                              panel per workload, every lane count and policy;
  ratio_vs_active_set_l1.png  the same against active set / L1d;
  ratio_vs_item_set.png       the item sweep: speed-up vs lanes x item bytes /
                              total cache (the data set grows with the items);
and prints Markdown tables: best result per kernel (like table 4.5) and per
workload, the coarse large points, the item sweep, the auto-tuner against the
sweep's best point, and (with --phm) the PHM gateway's savings.
"""
import argparse
import json
import os
import sys

KERNELS = (("bptree", "B+Tree"), ("svm", "SVM"), ("norm", "Norm"), ("conv", "CNN (conv3x3)"))


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def sweep_of(p):
    return p.get("sweep", "tune" if p.get("autotuned") else "step")


def plot(points, out, xkey, xlabel, fname, title, sweep="step", mark_tuned=True):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: apt-get install python3-matplotlib", file=sys.stderr)
        return None
    pts_all = [p for p in points if sweep_of(p) == sweep]
    names = sorted({p["workload"] for p in pts_all})
    if not names:
        return None
    cols = 3
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.4 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        for mode, style in (("prefetch", "-"), ("no_prefetch", ":")):
            for lanes in sorted({p["lanes"] for p in pts_all if p["workload"] == name}):
                pts = sorted((p[xkey], p["median"], p["p10"], p["p90"]) for p in pts_all
                             if p["workload"] == name and p["mode"] == mode and p["lanes"] == lanes)
                if not pts:
                    continue
                x = [a for a, *_ in pts]
                y = [b for _, b, *_ in pts]
                lo = [max(0.0, b - c) for _, b, c, _ in pts]
                hi = [max(0.0, d - b) for _, b, _, d in pts]
                ax.errorbar(x, y, yerr=[lo, hi], linestyle=style, marker="o", ms=3, capsize=2,
                            label=f"{lanes} lanes{'' if mode == 'prefetch' else ', no prefetch'}")
        if mark_tuned:
            for p in points:
                if p["workload"] == name and sweep_of(p) == "tune" and p.get("interleave", True):
                    ax.plot([p[xkey]], [p["median"]], "k*", ms=12, label="auto-tuned")
        ax.axhline(1.0, color="grey", lw=0.8)
        if xkey in ("cache_ratio", "item_active_set_ratio"):
            ax.axvline(1.0, color="grey", lw=0.6, ls="--")
        ax.set_xscale("log")
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("sequential / interleaved")
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=6)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, fname)
    fig.savefig(path, dpi=90)
    return path


def best_of(cand):
    return max(cand, key=lambda p: p["median"]) if cand else None


def kernel_of(name):
    return name.split("-")[0]


def tables(points, machine):
    print(f"Machine: {machine.get('target')}, {machine.get('nproc', '?')} vCPUs, L1d {machine.get('l1d_bytes', 0) >> 10} KiB, "
          f"L2 {machine.get('l2_bytes', 0) >> 10} KiB, L3 {machine.get('l3_bytes', 0) >> 10} KiB, total "
          f"{machine.get('cache_bytes', 0) / 1048576:.1f} MiB (from {machine.get('cache_source')}); metric "
          f"{machine.get('metric')}; perf_event_open: {machine.get('perf_event_open')} ({machine.get('perf_why') or 'ok'})\n")
    step = [p for p in points if sweep_of(p) == "step"]
    item = [p for p in points if sweep_of(p) == "item"]
    tuned = [p for p in points if sweep_of(p) == "tune"]
    names = sorted({p["workload"] for p in step})

    print("**Best result per kernel** (like table 4.5: the highest median over numeric types, lanes, "
          "active sets and prefetch / no prefetch; gain = ratio - 1):\n")
    print("| kernel | per-step sweep: gain (p10-p90) | at | item sweep: gain (p10-p90) | at |")
    print("|---|---|---|---|---|")
    for k, label in KERNELS:
        cells = []
        for pts in (step, item):
            b = best_of([p for p in pts if kernel_of(p["workload"]) == k])
            if b is None:
                cells += ["-", "-"]
                continue
            where = (f"{b['workload']}, {b['mode']}, {b['lanes']} lanes, "
                     + (f"step {b['step_bytes']} B = {b['cache_ratio']:.2g}x cache" if pts is step else
                        f"item {b['item_bytes']} B, lanes x item = {b['item_active_set_ratio']:.2g}x cache"))
            cells += [f"{100 * (b['median'] - 1):+.0f}% ({100 * (b['p10'] - 1):+.0f}..{100 * (b['p90'] - 1):+.0f}%)", where]
        print(f"| {label} | " + " | ".join(cells) + " |")

    print("\n**Best point per workload, per-step sweep** (the tuner's search space; active set = lanes x step):\n")
    print("| workload | best ratio (p10-p90) | mode | lanes | step bytes | active set / L1 | / total cache | "
          "lanes x item / total |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        b = best_of([p for p in step if p["workload"] == name])
        print(f"| {name} | {b['median']:.2f}x ({b['p10']:.2f}-{b['p90']:.2f}) | {b['mode']} | {b['lanes']} | "
              f"{b['step_bytes']} | {b['l1_ratio']:.3g} | {b['cache_ratio']:.2g} | {b['item_active_set_ratio']:.3g} |")

    coarse = sorted({round(p["cache_ratio"], 1) for p in step if p.get("coarse")})
    if coarse:
        print("\n**Coarse large points** (per-step active set 0.3-20x total cache; best median over the lanes "
              "and both policies at each point, p10-p90 of that point):\n")
        print("| workload | " + " | ".join(f"{c:g}x" for c in coarse) + " |")
        print("|---|" + "---|" * len(coarse))
        for name in names:
            cells = []
            for c in coarse:
                b = best_of([p for p in step if p["workload"] == name and p.get("coarse")
                             and round(p["cache_ratio"], 1) == c])
                cells.append(f"{b['median']:.2f} ({b['p10']:.2f}-{b['p90']:.2f})" if b else "-")
            print(f"| {name} | " + " | ".join(cells) + " |")

    if item:
        ratios = sorted({round(p["item_active_set_ratio"], 2) for p in item})
        print("\n**Item sweep** (step fixed at ~1 KiB; lanes x item bytes / total cache varied through the tree size, "
              "rows per table, rows per image; 2 x lanes items, so the data set is twice that; best median over "
              "the lanes and both policies):\n")
        print("| workload | " + " | ".join(f"{r:g}x" for r in ratios) + " | best |")
        print("|---|" + "---|" * (len(ratios) + 1))
        for name in sorted({p["workload"] for p in item}):
            cells = []
            for r in ratios:
                b = best_of([p for p in item if p["workload"] == name and round(p["item_active_set_ratio"], 2) == r])
                cells.append(f"{b['median']:.2f}" if b else "-")
            b = best_of([p for p in item if p["workload"] == name])
            cells.append(f"{b['median']:.2f}x ({b['p10']:.2f}-{b['p90']:.2f}) at {b['item_active_set_ratio']:.2g}x, "
                         f"{b['lanes']} lanes, {b['mode']}")
            print(f"| {name} | " + " | ".join(cells) + " |")

    if tuned:
        print("\n**Auto-tuner against the sweep's best point**, both re-measured in one alternating loop "
              "(medians of paired runs, p10-p90):\n")
        print("| workload | auto-tuner choice | calibrated | tuned ratio (p10-p90) | sweep best, re-measured (p10-p90) "
              "| sweep best point (sweep median) | tuned / best | samples | tuning s |")
        print("|---|---|---|---|---|---|---|---|---|")
        within = 0
        total_s = 0.0
        for p in tuned:
            choice = (f"{p.get('tuned_mode', p['mode'])}, {p['lanes']} lanes x {p['step_bytes']} B"
                      if p.get("interleave", True) else
                      f"sequential (best interleaved {p.get('best_interleaved_remeasured', 0):.2f}x)")
            ok = p["vs_best"] >= 0.95
            within += ok
            total_s += p["tune_seconds"]
            print(f"| {p['workload']} | {choice} | {p.get('calibrated_speedup', 0):.2f}x | {p['median']:.2f}x "
                  f"({p['p10']:.2f}-{p['p90']:.2f}) | {p['sweep_best_remeasured']:.2f}x "
                  f"({p.get('sweep_best_p10', 0):.2f}-{p.get('sweep_best_p90', 0):.2f}) | "
                  f"{p.get('sweep_best_mode', '?')}, {p.get('sweep_best_lanes', '?')} x {p.get('sweep_best_step_bytes', '?')} B "
                  f"({p['sweep_best']:.2f}x) | {'' if ok else '**'}{100 * p['vs_best']:.0f}%{'' if ok else '**'} | "
                  f"{p['trials']} | {p['tune_seconds']:.1f} |")
        print(f"\nWithin 5 % of the best (or better): {within} of {len(tuned)}; tuning time {total_s:.0f} s in all.")


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
    docs = os.path.dirname(os.path.abspath(a.out)) if a.out else "docs"
    for args in (("cache_ratio", "per-step active set / total cache", "ratio_vs_active_set.png",
                  "speed-up vs per-step active set (lanes x step) / total cache"),
                 ("l1_ratio", "per-step active set / L1d", "ratio_vs_active_set_l1.png",
                  "speed-up vs per-step active set / L1d")):
        path = plot(points, a.out, *args)
        if path:
            print(f"![{args[3]}]({os.path.relpath(path, docs)})\n")
    path = plot(points, a.out, "item_active_set_ratio", "lanes x item bytes / total cache", "ratio_vs_item_set.png",
                "item sweep: speed-up vs lanes x item bytes / total cache (step ~1 KiB)", sweep="item",
                mark_tuned=False)
    if path:
        print(f"![item sweep]({os.path.relpath(path, docs)})\n")
    tables(points, machine)
    if a.phm:
        phm_table([r for r in load(a.phm) if r.get("workload") == "phm_gateway"])


if __name__ == "__main__":
    main()
