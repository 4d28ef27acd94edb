#!/usr/bin/python3
"""Reference harness: guarded-cas-claim the way a short Python script does it (psycopg 3 +
threading.Barrier), to measure racelab against (docs/performance.md).

Per trial, the same work racelab does for scenarios/guarded-cas-claim.yaml at read committed:
  - every session starts clean: DISCARD ALL, then SET search_path TO <schema> (two round trips, as
    racelab's StartClean; the workers and a control connection);
  - fresh state (--reset schema, the default): DROP SCHEMA IF EXISTS <schema> CASCADE; CREATE SCHEMA
    <schema>; the scenario's setup (CREATE TABLE runs …; INSERT the queued row) — or, with
    --reset update, one UPDATE that puts the row back (a cheaper reset racelab does not do by default);
  - N worker threads (started per trial, as racelab's are), each on its own connection:
    BEGIN ISOLATION LEVEL READ COMMITTED; SELECT 1; threading.Barrier.wait(timeout); the claim
    UPDATE … RETURNING id; COMMIT;
  - the final check SELECT attempts FROM runs WHERE id = 1 (must be 1) and exactly one winner.
The schema is dropped at the end. Skew: first-to-last time.perf_counter_ns() taken right after
Barrier.wait() returns, i.e. just before each worker sends its claim (racelab's skew_us measures the
same span). trials/s counts the trial loop only (connections are opened before it).

  RACELAB_BENCH_DSN=… /usr/bin/python3 bench/reference_harness.py --trials 300 [--reset update] [--json FILE]
Exit 0 when every trial had one winner and attempts = 1, 1 otherwise, 3 on a database error.
"""
import argparse
import json
import os
import statistics
import sys
import threading
import time

import psycopg

SCHEMA = "racelab_reference"
SETUP = """
CREATE TABLE runs (
  id bigint PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('queued','running','succeeded','failed','cancelled')),
  attempts int NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  error text);
INSERT INTO runs (id, status) VALUES (1, 'queued');
"""
RESET_UPDATE = ("UPDATE runs SET status = 'queued', attempts = 0, created_at = now(), started_at = NULL, "
                "finished_at = NULL, error = NULL WHERE id = 1")
CLAIM = ("UPDATE runs SET status = 'running', attempts = attempts + 1, started_at = now() "
         "WHERE id = 1 AND status = 'queued' RETURNING id")
BARRIER_TIMEOUT_S = 30


def percentile(values, q):
    v = sorted(values)
    return v[int(q * (len(v) - 1))] if v else 0


def run(dsn, trials, workers, reset):
    # prepare_threshold=None: psycopg would prepare a statement after 5 runs, and DISCARD ALL drops it.
    control = psycopg.connect(dsn, autocommit=True, prepare_threshold=None)
    conns = [psycopg.connect(dsn, autocommit=True, prepare_threshold=None) for _ in range(workers)]
    skews_us, failures = [], 0
    if reset == "update":
        control.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE; CREATE SCHEMA {SCHEMA}; SET search_path TO {SCHEMA}")
        control.execute(SETUP)
    start = time.perf_counter()
    for _ in range(trials):
        for c in [control] + conns:
            c.execute("DISCARD ALL")
            c.execute(f"SET search_path TO {SCHEMA}")
        if reset == "schema":
            control.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE; CREATE SCHEMA {SCHEMA}")
            control.execute(SETUP)
        else:
            control.execute(RESET_UPDATE)
        barrier = threading.Barrier(workers)
        sent = [0] * workers
        won = [False] * workers

        def worker(i):
            c = conns[i]
            c.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            c.execute("SELECT 1")
            barrier.wait(BARRIER_TIMEOUT_S)
            sent[i] = time.perf_counter_ns()
            won[i] = c.execute(CLAIM).fetchone() is not None
            c.execute("COMMIT")

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        skews_us.append((max(sent) - min(sent)) / 1000)
        attempts = control.execute("SELECT attempts FROM runs WHERE id = 1").fetchone()[0]
        if sum(won) != 1 or attempts != 1:
            failures += 1
    elapsed = time.perf_counter() - start
    control.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    for c in [control] + conns:
        c.close()
    return {"trials": trials, "workers": workers, "reset": reset, "seconds": elapsed,
            "trials_per_second": trials / elapsed, "failed_trials": failures,
            "skew_us": {"p50": percentile(skews_us, 0.5), "p95": percentile(skews_us, 0.95),
                        "max": max(skews_us), "mean": statistics.fmean(skews_us)}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reset", choices=["schema", "update"], default="schema")
    ap.add_argument("--json", help="write the result here too")
    args = ap.parse_args()
    if args.trials < 1 or args.workers < 1:
        ap.error("--trials and --workers must be at least 1")
    dsn = os.environ.get("RACELAB_BENCH_DSN")
    if not dsn:
        ap.error("set RACELAB_BENCH_DSN (or run under racelab-with-cluster)")
    try:
        result = run(dsn, args.trials, args.workers, args.reset)
    except psycopg.Error as e:
        print(f"reference_harness: {e}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        # Interrupted: drop the schema it made (best effort), no traceback.
        try:
            with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as c:
                c.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        except (psycopg.Error, KeyboardInterrupt):
            print(f"reference_harness: schema {SCHEMA} may be left; drop it by hand", file=sys.stderr)
        print("reference_harness: interrupted", file=sys.stderr)
        return 130
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f)
    return 1 if result["failed_trials"] else 0


if __name__ == "__main__":
    sys.exit(main())
