#!/usr/bin/python3
"""racelab-bench and pgbench side by side on one server: the guarded CAS claim, same SQL, same protocol.

For each protocol (simple, extended, prepared, pipeline) and client count (1, 2, 4), in rounds and
alternating which tool goes first, it runs

  racelab-bench --benchmark_filter='^guarded_cas_claim/read_committed/<protocol>/iterations:1/real_time/threads:<n>$'
  pgbench -n -M <mode> -c <n> -j <n> -T <seconds> -f bench/pgbench/guarded_cas_claim[_pipeline].sql

on a fresh 100,000-row queue each time (racelab-bench's own setup, reset and VACUUM), and prints each tool's
transactions per second and the ratio racelab-bench / pgbench. pipeline pairs racelab-bench's libpq
pipeline with pgbench -M prepared and \\startpipeline/\\endpipeline. Before measuring it checks that
racelab-bench's claim and BEGIN (its JSON context) are the pgbench script's statements, character for
character.

Server: $RACELAB_BENCH_DSN (libpq conninfo), e.g. racelab's embedded cluster:
  build/bench/racelab-with-cluster -- /usr/bin/python3 bench/compare_pgbench.py --bench build/bench/racelab-bench
Output: a Markdown table on stdout; --json FILE also writes every measurement. Exit 0, 2 usage, 3 when
the server or a tool fails.
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys

import psycopg

HERE = pathlib.Path(__file__).resolve().parent
SCHEMA = "racelab_bench"
QUEUE_ROWS = 100000
# The same DDL as racelab-bench's PrepareSchema (bench/claim_bench.cc).
SETUP = (f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE; CREATE SCHEMA {SCHEMA}; SET search_path TO {SCHEMA};"
         " CREATE TABLE runs (id bigint PRIMARY KEY, status text NOT NULL, attempts int NOT NULL DEFAULT 0);"
         " CREATE INDEX runs_queued ON runs (id) WHERE status = 'queued';"
         f" INSERT INTO runs (id, status) SELECT g, 'queued' FROM generate_series(1, {QUEUE_ROWS}) g; ANALYZE runs;")
MODES = {"simple": ("simple", "guarded_cas_claim.sql"), "extended": ("extended", "guarded_cas_claim.sql"),
         "prepared": ("prepared", "guarded_cas_claim.sql"),
         "pipeline": ("prepared", "guarded_cas_claim_pipeline.sql")}


def fresh_queue(dsn):
    """The queue racelab-bench measures on: its setup, then the reset + VACUUM its thread 0 runs."""
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute(SETUP)
        c.execute(f"UPDATE {SCHEMA}.runs SET status = 'queued', attempts = 0 WHERE status <> 'queued'")
        c.execute(f"VACUUM {SCHEMA}.runs")


def drop_queue(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def run_racelab(bench, protocol, clients, seconds):
    name = f"^guarded_cas_claim/read_committed/{protocol}/iterations:1/real_time/threads:{clients}$"
    out = subprocess.run([bench, f"--benchmark_filter={name}", "--benchmark_format=json"],
                         capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, RACELAB_BENCH_SECONDS=str(seconds)))
    if out.returncode != 0:
        sys.exit(f"racelab-bench failed ({out.returncode}): {out.stderr[-2000:]}")
    doc = json.loads(out.stdout)
    runs = [b for b in doc["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
    if not runs or runs[0].get("error_occurred"):
        sys.exit(f"racelab-bench: {name}: {runs[0].get('error_message') if runs else 'no result'}")
    return runs[0]["items_per_second"], doc["context"]


def run_pgbench(dsn, protocol, clients, seconds):
    mode, script = MODES[protocol]
    fresh_queue(dsn)
    env = dict(os.environ, PGOPTIONS=f"-c search_path={SCHEMA}")
    # A password goes to pgbench through its environment, never its command line (visible in ps).
    params = psycopg.conninfo.conninfo_to_dict(dsn)
    if "password" in params:
        env["PGPASSWORD"] = str(params.pop("password"))
    out = subprocess.run(["pgbench", "-n", "-M", mode, "-c", str(clients), "-j", str(clients), "-T", str(seconds),
                          "-f", str(HERE / "pgbench" / script), psycopg.conninfo.make_conninfo(**params)],
                         capture_output=True, text=True, env=env,
                         timeout=seconds + 120)
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out.stdout)
    if out.returncode != 0 or not m:
        sys.exit(f"pgbench failed ({out.returncode}): {out.stderr[-2000:]}{out.stdout[-2000:]}")
    drop_queue(dsn)
    return float(m.group(1))


def check_same_sql(context):
    """racelab-bench's statements must be the pgbench script's, character for character."""
    lines = [l.rstrip(";") for l in (HERE / "pgbench" / "guarded_cas_claim.sql").read_text().splitlines() if l]
    want = [context.get("begin_sql_read_committed"), context.get("claim_sql"), "COMMIT"]
    if lines != want:
        sys.exit(f"bench/pgbench/guarded_cas_claim.sql differs from racelab-bench's SQL:\n{lines}\n{want}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/bench/racelab-bench")
    ap.add_argument("--seconds", type=int, default=5, help="per measurement (pgbench -T, RACELAB_BENCH_SECONDS)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--clients", default="1,2,4")
    ap.add_argument("--protocols", default="simple,extended,prepared,pipeline")
    ap.add_argument("--json", help="also write every measurement here")
    args = ap.parse_args()
    bad = [p for p in args.protocols.split(",") if p not in MODES]
    if bad:
        ap.error(f"unknown protocol {', '.join(bad)}: choose from {', '.join(MODES)}")
    try:
        if any(int(c) < 1 for c in args.clients.split(",")):
            raise ValueError
    except ValueError:
        ap.error("--clients takes whole numbers of at least 1, separated by commas")
    if args.seconds < 1 or args.rounds < 1:
        ap.error("--seconds and --rounds must be at least 1")
    dsn = os.environ.get("RACELAB_BENCH_DSN")
    if not dsn:
        ap.error("set RACELAB_BENCH_DSN (or run under racelab-with-cluster)")
    try:
        return compare(args, dsn)
    except psycopg.Error as e:
        print(f"compare_pgbench: {e}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("compare_pgbench: interrupted", file=sys.stderr)
        return 130


def compare(args, dsn):
    with psycopg.connect(dsn) as c:
        version = c.execute("SHOW server_version").fetchone()[0]
        settings = dict(c.execute("SELECT name, setting FROM pg_settings WHERE name IN ('fsync', "
                                  "'synchronous_commit', 'full_page_writes', 'max_connections')").fetchall())
    rows = []
    checked = False
    for rnd in range(args.rounds):
        for protocol in args.protocols.split(","):
            for clients in map(int, args.clients.split(",")):
                order = ["racelab", "pgbench"] if (rnd + clients) % 2 == 0 else ["pgbench", "racelab"]
                got = {}
                for tool in order:
                    if tool == "racelab":
                        got[tool], context = run_racelab(args.bench, protocol, clients, args.seconds)
                        if not checked:
                            check_same_sql(context)
                            checked = True
                    else:
                        got[tool] = run_pgbench(dsn, protocol, clients, args.seconds)
                rows.append({"round": rnd + 1, "protocol": protocol, "clients": clients, "racelab_tps": got["racelab"],
                             "pgbench_tps": got["pgbench"], "ratio": got["racelab"] / got["pgbench"]})
                print(f"# round {rnd + 1} {protocol} c={clients}: racelab-bench {got['racelab']:.0f} tps, "
                      f"pgbench {got['pgbench']:.0f} tps, ratio {got['racelab'] / got['pgbench']:.2f}",
                      file=sys.stderr, flush=True)
    print(f"PostgreSQL {version}; {settings}; {args.seconds} s per measurement, {args.rounds} rounds\n")
    print("| protocol | clients | racelab-bench tps (median) | pgbench tps (median) | ratio per round | median ratio |")
    print("|---|---|---|---|---|---|")
    for protocol in args.protocols.split(","):
        for clients in map(int, args.clients.split(",")):
            rs = [r for r in rows if r["protocol"] == protocol and r["clients"] == clients]
            print(f"| {protocol} | {clients} | {statistics.median(r['racelab_tps'] for r in rs):.0f} | "
                  f"{statistics.median(r['pgbench_tps'] for r in rs):.0f} | "
                  f"{', '.join('%.2f' % r['ratio'] for r in rs)} | {statistics.median(r['ratio'] for r in rs):.2f} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"server_version": version, "settings": settings,
                                                       "rows": rows}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
