#!/usr/bin/python3
"""Turns `racelab bench`'s bench.json (schema racelab-bench/1, docs/bench.md) into an SVG plot: one
column per engine × scenario; top, committed transactions/s against clients, bottom, the p99 latency
in ms against clients; one line per isolation level, error bars the 95 % interval over the repeats
(none with one repeat). Drawn by gnuplot (Debian package gnuplot-nox, installed by scripts/bootstrap).

  racelab bench guarded-cas-claim skip-locked-pull --isolation rc,ser --clients 1,2,4 --out bench/
  /usr/bin/python3 bench/plot_bench.py bench/bench.json --svg bench/bench.svg

Exit 2 on unusable input, 3 when gnuplot fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

LEVELS = ["read uncommitted", "read committed", "repeatable read", "serializable"]


def fail(message):
    sys.stderr.write(message + "\n")
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if doc.get("schema") != "racelab-bench/1":
        fail(f"{path}: not a racelab bench report (schema racelab-bench/1)")
    cells = [c for c in doc.get("cells", []) if c.get("rounds", 0) > 0]
    if not cells:
        fail(f"{path}: no measured cell")
    return doc, cells


def ci(figure):
    return figure.get("ci95") or 0


def plot(doc, cells, svg):
    columns = []
    for c in cells:
        key = (c["engine"], c["scenario"])
        if key not in columns:
            columns.append(key)
    clients = sorted({c["clients"] for c in cells})
    loop = doc["workload"]["loop"]
    rate = f" at {doc['workload']['rate_per_s']:g} tx/s" if loop == "open" else ""
    repeats = doc["workload"]["repeats"]
    note = f"mean of {repeats} repeats, bars: 95 % interval" if repeats > 1 else "one repeat"
    with tempfile.TemporaryDirectory() as tmp:
        script = [
            f"set terminal svg size {max(420 * len(columns), 600)},640 dynamic noenhanced "
            "font 'sans,11' background rgb 'white'",
            f"set output '{svg}'",
            f"set multiplot layout 2,{len(columns)} title 'racelab bench, {loop} loop{rate} ({note})'",
            "set logscale x 2", f"set xtics ({', '.join(str(n) for n in clients)})",
            f"set xrange [{clients[0] * 0.8}:{clients[-1] * 1.25}]", "set xlabel 'clients'",
            "set grid", "set key top left font ',9'",
        ]
        for row, (ylabel, get) in enumerate([
                ("committed tx/s", lambda c: (c["committed_per_s"]["mean"], ci(c["committed_per_s"]))),
                ("p99 latency, ms", lambda c: (c["latency_us"]["p99"]["mean"] / 1000,
                                               ci(c["latency_us"]["p99"]) / 1000))]):
            script.append(f"set ylabel '{ylabel}'")
            script.append("set yrange [0:*]")
            for engine, scenario in columns:
                script.append(f"set title '{engine} {scenario}'" if row == 0 else "set title ''")
                parts = []
                for li, level in enumerate(LEVELS):
                    points = sorted((c["clients"], *get(c)) for c in cells
                                    if (c["engine"], c["scenario"], c["isolation"]) == (engine, scenario, level))
                    if not points:
                        continue
                    path = os.path.join(tmp, f"{row}-{len(parts)}-{abs(hash((engine, scenario, level)))}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        for n, y, e in points:
                            f.write(f"{n} {y:.3f} {e:.3f}\n")
                    parts.append(f"'{path}' using 1:2:3 with yerrorlines lw 2 lt {li + 1} title '{level}'")
                script.append("plot " + (", ".join(parts) if parts else "NaN title 'not run'"))
        script.append("unset multiplot")
        r = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, capture_output=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            sys.exit(3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("report", help="bench.json of racelab bench")
    ap.add_argument("--svg", required=True, help="the SVG file to write")
    a = ap.parse_args()
    doc, cells = load(a.report)
    plot(doc, cells, a.svg)


if __name__ == "__main__":
    main()
