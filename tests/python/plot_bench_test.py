#!/usr/bin/env python3
"""bench/plot_bench.py on a bench.json of racelab bench's shape (schema racelab-bench/1, docs/bench.md):
one column per engine × scenario titled so, one line per level that ran with its 95 % interval as the
error bar (yerrorlines), nothing drawn for a cell that measured no round; a file of another schema is
refused (exit 2).

Usage: plot_bench_test.py --source DIR   (ctest: plot_bench; needs gnuplot, scripts/bootstrap)
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


def figure(mean, ci):
    return {"mean": mean, "ci95": ci, "n": 3}


def cell(scenario, level, clients, committed, rounds=10):
    return {"engine": "postgresql", "scenario": scenario, "isolation": level, "clients": clients,
            "rounds": rounds, "committed_per_s": figure(committed, committed / 10),
            "latency_us": {p: figure(1000.0 * clients, 100.0) for p in ["p50", "p90", "p99", "p99.9", "max"]}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    script = os.path.join(a.source, "bench", "plot_bench.py")
    with tempfile.TemporaryDirectory() as tmp:
        report = {"schema": "racelab-bench/1",
                  "workload": {"loop": "closed", "rate_per_s": None, "repeats": 3},
                  "cells": [cell("guarded-cas-claim", "read committed", 1, 300),
                            cell("guarded-cas-claim", "read committed", 2, 480),
                            cell("guarded-cas-claim", "serializable", 2, 330),
                            cell("skip-locked-pull", "read committed", 2, 36),
                            cell("skip-locked-pull", "serializable", 2, 0, rounds=0)]}
        path = os.path.join(tmp, "bench.json")
        with open(path, "w") as f:
            json.dump(report, f)
        svg = os.path.join(tmp, "bench.svg")
        r = subprocess.run([sys.executable, script, path, "--svg", svg], capture_output=True, text=True)
        check(r.returncode == 0, f"plot_bench.py exit {r.returncode}: {r.stderr}")
        text = open(svg).read() if os.path.exists(svg) else ""
        check("postgresql guarded-cas-claim" in text, "a column titled by engine and scenario")
        check("postgresql skip-locked-pull" in text, "the second scenario's column")
        check("mean of 3 repeats, bars: 95 % interval" in text, "the title says what the bars are")
        check(text.count(">serializable<") == 2, "serializable drawn where it measured rounds only "
              f"(guarded-cas-claim, both rows): {text.count('>serializable<')}")
        with open(path, "w") as f:
            json.dump({"schema": "other"}, f)
        r = subprocess.run([sys.executable, script, path, "--svg", svg], capture_output=True, text=True)
        check(r.returncode == 2 and "racelab-bench/1" in r.stderr, f"another schema: exit {r.returncode}")
    for f in FAILS:
        print("FAIL:", f)
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
