#!/usr/bin/python3
"""Turns racelab-bench's (or racelab-mariadb-bench's) claim-strategy results (Google Benchmark JSON) into an SVG plot and a Markdown
summary (docs/claim-strategies.md shows one run's).

  build/bench/racelab-bench --benchmark_filter='^strategy/' --benchmark_format=json \
      --benchmark_out=strategies.json --benchmark_out_format=json        # RACELAB_BENCH_SECONDS=1 for a quick run
  /usr/bin/python3 bench/plot_strategies.py strategies.json --svg docs/claim-strategies.svg \
      --markdown claim-strategies-table.md
  RACELAB_BENCH_SECONDS=1 build/bench/racelab-mariadb-bench --benchmark_format=json \
      --benchmark_out=mariadb.json --benchmark_out_format=json   # the same suite on MariaDB (InnoDB)
  /usr/bin/python3 bench/plot_strategies.py mariadb.json --svg docs/claim-strategies-mariadb.svg \
      --markdown mariadb-table.md

With --benchmark_repetitions=K (K >= 2) each cell is the mean of its K runs, and the plot draws the
95 % confidence interval of that mean as error bars (the benchmarks' _ci95 aggregate: the half-width of
the Student-t interval, harness/metrics/confidence.h); the table shows "mean ± half-width":

  RACELAB_BENCH_SECONDS=1 build/bench/racelab-bench --benchmark_filter='^strategy/' \
      --benchmark_repetitions=3 --benchmark_out=strategies.json --benchmark_out_format=json

The plot: claims per second (rows claimed by exactly one worker) against workers, one panel per
isolation level, one line per strategy; drawn by gnuplot (Debian package gnuplot-nox, installed by
scripts/bootstrap). The table: per strategy, level and workers, claims/s, double claims/s, lost/s,
retries/s (serialization failures + lock not available) and claim latency p50/p99 in µs.
Exit 2 on unusable input, 3 when gnuplot fails.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# racelab-bench ends its names in …/threads:N; racelab-mariadb-bench has …/threads:N/iterations:1/manual_time.
NAME = re.compile(r"^strategy/(?P<strategy>[a-z_]+)/(?P<level>[a-z_]+)/(.*/)?threads:(?P<threads>\d+)(/|$)")
STRATEGIES = ["naive", "for_update", "nowait", "skip_locked", "guarded_cas", "advisory"]
LEVELS = ["read_committed", "repeatable_read", "serializable"]


class Cell:
    """One strategy × level × workers: its figures (the mean of the repetitions when there are some), the
    95 % half-widths (0 without repetitions) and how many runs they are from."""

    def __init__(self, values, errors, runs):
        self.values, self.errors, self.runs = values, errors, runs

    def get(self, key, default=0):
        return self.values.get(key, default)

    def err(self, key):
        return self.errors.get(key, 0)


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    runs, aggregates = {}, {}
    for b in doc.get("benchmarks", []):
        # Aggregates are named <run_name>_mean, _ci95, …; run_name is the cell's own name.
        m = NAME.match(b.get("run_name", b.get("name", "")))
        if not m or b.get("error_occurred"):
            continue
        key = (m["strategy"], m["level"], int(m["threads"]))
        if b.get("run_type") == "aggregate":
            aggregates.setdefault(key, {})[b.get("aggregate_name")] = b
        else:
            runs.setdefault(key, []).append(b)
    rows = {}
    for key, its in runs.items():
        agg = aggregates.get(key, {})
        if "mean" in agg and len(its) >= 2:
            rows[key] = Cell(agg["mean"], agg.get("ci95", {}), len(its))
        else:
            rows[key] = Cell(its[0], {}, 1)
    if not rows:
        sys.exit(f"{path}: no strategy/… benchmarks in it (run racelab-bench --benchmark_filter='^strategy/')")
    return doc.get("context", {}), rows


def engine_title(context):
    """The server the figures are from, as the benchmark's context names it."""
    version = context.get("server_version", "").split("-")[0].split(" ")[0]
    if context.get("engine") == "mariadb":
        return f"MariaDB {version} InnoDB".replace("  ", " ")
    return f"PostgreSQL {version}".strip() if version else "PostgreSQL"


def repeats_note(rows):
    """How the points were made: one run each, or the mean ± 95 % interval of K runs."""
    counts = sorted({c.runs for c in rows.values()})
    if counts == [1]:
        return "one run per point"
    k = "/".join(str(n) for n in counts)
    return f"mean of {k} runs, bars: 95 % interval"


def plot(context, rows, svg):
    threads = sorted({k[2] for k in rows})
    with tempfile.TemporaryDirectory() as tmp:
        # One data file per line that has points: a strategy that did not run draws nothing, and the
        # others keep their names and colours (linetype = the strategy's place in STRATEGIES).
        series = {}
        for level in LEVELS:
            for s in STRATEGIES:
                points = [(t, rows[(s, level, t)]) for t in threads if (s, level, t) in rows]
                if not points:
                    continue
                path = os.path.join(tmp, f"{level}-{s}.txt")
                with open(path, "w", encoding="utf-8") as f:
                    for t, b in points:
                        f.write(f"{t} {b.get('claims', 0):.1f} {b.err('claims'):.1f}\n")
                series[(level, s)] = path
        script = [
            "set terminal svg size 1200,460 dynamic noenhanced font 'sans,11' background rgb 'white'",
            f"set output '{svg}'",
            f"set multiplot layout 1,3 title 'Claims per second vs workers ({engine_title(context)}, one queue head, "
            f"strategy/…; {repeats_note(rows)})'",
            "set logscale x 2", f"set xtics ({', '.join(str(t) for t in threads)})",
            f"set xrange [{threads[0] * 0.8}:{threads[-1] * 1.25}]",
            "set xlabel 'workers'", "set ylabel 'claims/s'", "set grid",
            # One scale for every panel, so the levels compare by eye.
            f"set yrange [0:{max(b.get('claims', 0) + b.err('claims') for b in rows.values()) * 1.1:.0f}]",
            "set key top left font ',9'",
        ]
        for level in LEVELS:
            script.append(f"set title '{level.replace('_', ' ')}'")
            parts = [f"'{series[(level, s)]}' using 1:2:3 with yerrorlines lw 2 lt {si + 1} title '{s}'"
                     for si, s in enumerate(STRATEGIES) if (level, s) in series]
            script.append("plot " + (", ".join(parts) if parts else "NaN title 'not run'"))
        script.append("unset multiplot")
        r = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, capture_output=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            sys.exit(3)


def figure(cell, key, digits=0):
    """A figure of the table: "1234", or "1234 ± 56" when it is a mean of repetitions."""
    text = f"{cell.get(key, 0):.{digits}f}"
    return text + f" ± {cell.err(key):.{digits}f}" if cell.runs > 1 else text


def table(context, rows):
    out = ["| strategy | level | workers | claims/s | double claims/s | lost/s | retries/s | latency p50 / p99 µs |",
           "|---|---|---|---|---|---|---|---|"]
    for s in STRATEGIES:
        for level in LEVELS:
            for t in sorted({k[2] for k in rows}):
                b = rows.get((s, level, t))
                if b is None:
                    continue
                out.append(f"| {s} | {level.replace('_', ' ')} | {t} | {figure(b, 'claims')} | "
                           f"{figure(b, 'double_claims')} | {figure(b, 'lost')} | {figure(b, 'retries')} | "
                           f"{figure(b, 'latency_p50_us')} / {figure(b, 'latency_p99_us')} |")
    settings = ", ".join(f"{k[len('setting_'):]} {v}" for k, v in sorted(context.items()) if k.startswith("setting_"))
    head = (f"{engine_title(context)}: run {context.get('date', '?')} on {context.get('host_name', '?')} "
            f"({context.get('num_cpus', '?')} CPUs; load average {context.get('load_avg_before', '?')} before, "
            f"{context.get('load_avg_after', '?')} after); {repeats_note(rows)}"
            + (f"; {settings}" if settings else "") + ".")
    return head + "\n\n" + "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--svg", required=True)
    ap.add_argument("--markdown", required=True)
    a = ap.parse_args()
    try:
        context, rows = load(a.json)
    except (OSError, ValueError) as e:
        print(f"plot_strategies: {a.json}: {e}", file=sys.stderr)
        return 2
    plot(context, rows, os.path.abspath(a.svg))
    with open(a.markdown, "w", encoding="utf-8") as f:
        f.write(table(context, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
