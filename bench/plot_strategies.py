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


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = {}
    for b in doc.get("benchmarks", []):
        m = NAME.match(b.get("name", ""))
        if not m or b.get("error_occurred"):
            continue
        key = (m["strategy"], m["level"], int(m["threads"]))
        rows[key] = b
    if not rows:
        sys.exit(f"{path}: no strategy/… benchmarks in it (run racelab-bench --benchmark_filter='^strategy/')")
    return doc.get("context", {}), rows


def engine_title(context):
    """The server the figures are from: racelab-mariadb-bench names its engine and version in the
    context; racelab-bench (PostgreSQL) does not."""
    if context.get("engine") == "mariadb":
        version = context.get("server_version", "").split("-")[0]
        return f"MariaDB {version} InnoDB".replace("  ", " ")
    return "PostgreSQL 15"


def plot(context, rows, svg):
    threads = sorted({k[2] for k in rows})
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data.txt")
        with open(data, "w", encoding="utf-8") as f:
            for level in LEVELS:
                for s in STRATEGIES:
                    f.write(f"# {level} {s}\n")
                    for t in threads:
                        b = rows.get((s, level, t))
                        if b is not None:
                            f.write(f"{t} {b.get('claims', 0):.1f}\n")
                    f.write("\n\n")
        script = [
            "set terminal svg size 1200,460 dynamic noenhanced font 'sans,11' background rgb 'white'",
            f"set output '{svg}'",
            f"set multiplot layout 1,3 title 'Claims per second vs workers ({engine_title(context)}, one queue head, strategy/…)'",
            "set logscale x 2", f"set xtics ({', '.join(str(t) for t in threads)})",
            f"set xrange [{threads[0] * 0.8}:{threads[-1] * 1.25}]",
            "set xlabel 'workers'", "set ylabel 'claims/s'", "set grid",
            # One scale for every panel, so the levels compare by eye.
            f"set yrange [0:{max(b.get('claims', 0) for b in rows.values()) * 1.1:.0f}]",
            "set key top left font ',9'",
        ]
        for li, level in enumerate(LEVELS):
            script.append(f"set title '{level.replace('_', ' ')}'")
            parts = []
            for si, s in enumerate(STRATEGIES):
                idx = li * len(STRATEGIES) + si
                parts.append(f"'{data}' index {idx} using 1:2 with linespoints lw 2 title '{s}'")
            script.append("plot " + ", ".join(parts))
        script.append("unset multiplot")
        r = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, capture_output=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            sys.exit(3)


def table(context, rows):
    out = ["| strategy | level | workers | claims/s | double claims/s | lost/s | retries/s | latency p50 / p99 µs |",
           "|---|---|---|---|---|---|---|---|"]
    for s in STRATEGIES:
        for level in LEVELS:
            for t in sorted({k[2] for k in rows}):
                b = rows.get((s, level, t))
                if b is None:
                    continue
                out.append(f"| {s} | {level.replace('_', ' ')} | {t} | {b.get('claims', 0):.0f} | "
                           f"{b.get('double_claims', 0):.0f} | {b.get('lost', 0):.0f} | {b.get('retries', 0):.0f} | "
                           f"{b.get('latency_p50_us', 0):.0f} / {b.get('latency_p99_us', 0):.0f} |")
    head = f"{engine_title(context)}: run {context.get('date', '?')} on {context.get('host_name', '?')} ({context.get('num_cpus', '?')} CPUs)."
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
