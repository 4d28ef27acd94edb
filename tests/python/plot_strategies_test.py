#!/usr/bin/env python3
"""bench/plot_strategies.py on Google Benchmark JSON that racelab-bench's shape: with repetitions, each
cell is its _mean and its error bar the _ci95 half-width (yerrorlines, "mean ± half-width" in the
table); without, the one run and no "±"; a strategy that did not run draws no line under another's name.

Usage: plot_strategies_test.py --source DIR   (ctest: plot_strategies; needs gnuplot, scripts/bootstrap)
Exit 0 when every check holds; 1 with the failed checks named.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)


def cell(strategy, level, threads, claims, aggregate=None, repetition=0):
    name = f"strategy/{strategy}/{level}/iterations:1/real_time/threads:{threads}"
    b = {"name": name + (f"_{aggregate}" if aggregate else ""), "run_name": name, "claims": claims,
         "double_claims": 0, "lost": 0, "retries": 0, "latency_p50_us": 200.0, "latency_p99_us": 900.0}
    if aggregate:
        b.update(run_type="aggregate", aggregate_name=aggregate)
    else:
        b.update(run_type="iteration", repetition_index=repetition)
    return b


CONTEXT = {"engine": "postgresql", "server_version": "15.18 (Debian 15.18-0+deb12u1)", "setting_fsync": "off",
           "load_avg_before": "1.00 1.00 1.00", "load_avg_after": "2.00 2.00 2.00", "num_cpus": 2}


def run(source, tmp, doc, stem):
    path = os.path.join(tmp, stem + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    svg, md = os.path.join(tmp, stem + ".svg"), os.path.join(tmp, stem + ".md")
    r = subprocess.run([sys.executable, os.path.join(source, "bench", "plot_strategies.py"), path, "--svg", svg,
                        "--markdown", md], capture_output=True, text=True)
    check(r.returncode == 0, f"{stem}: exit {r.returncode}: {r.stderr[-500:]}")
    read = lambda p: open(p, encoding="utf-8").read() if os.path.exists(p) else ""
    return read(svg), read(md)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # Repeated: 3 runs of one cell, Google Benchmark's aggregates and racelab-bench's _ci95.
        runs = [cell("skip_locked", "read_committed", 2, c, repetition=i) for i, c in enumerate((900, 1000, 1100))]
        aggs = [cell("skip_locked", "read_committed", 2, 1000, "mean"),
                cell("skip_locked", "read_committed", 2, 1000, "median"),
                cell("skip_locked", "read_committed", 2, 100, "stddev"),
                cell("skip_locked", "read_committed", 2, 248.4, "ci95")]
        single = [cell("guarded_cas", "serializable", 4, 777)]
        svg, md = run(a.source, tmp, {"context": CONTEXT, "benchmarks": runs + aggs}, "repeated")
        check("| skip_locked | read committed | 2 | 1000 ± 248 |" in md, f"the mean ± ci95 row: {md!r}")
        check("mean of 3 runs, bars: 95 % interval" in md, "the table says how its figures were made")
        check("PostgreSQL 15.18" in md and "fsync off" in md and "2.00 2.00 2.00 after" in md,
              "the heading names the server, its settings and the load after")
        check("<svg" in svg and "skip_locked" in svg, "the plot names the strategy that ran")
        # Only guarded_cas ran: no other strategy's name in the plot, and no "±" without repetitions.
        svg, md = run(a.source, tmp, {"context": CONTEXT, "benchmarks": single}, "single")
        check("| guarded_cas | serializable | 4 | 777 |" in md, f"one run: its own figure: {md!r}")
        check("±" not in md.split("\n\n", 1)[1], "no interval without repetitions")
        check("one run per point" in md, "the table says one run per point")
        for other in ("naive", "for_update", "nowait", "skip_locked", "advisory"):
            check(f">{other}<" not in svg, f"the plot draws no line named {other}, which did not run")
        check(">guarded_cas<" in svg, "the plot names guarded_cas")
    for f in FAILS:
        print("FAIL:", f)
    print(f"plot_strategies_test: {len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
