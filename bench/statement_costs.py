#!/usr/bin/python3
"""Statement costs: wall time and server CPU of each statement racelab sends per trial of
guarded-cas-claim (read committed, `reset:`), one kind at a time, on an embedded cluster
(docs/performance.md "Trials per second with reset:").

Per kind, N executions on one connection (psycopg 3, simple protocol, autocommit), in 2 rounds:
  - the checker's version read (EXECUTE racelab_version, the query of
    harness/engines/postgresql/workspace_state.cc for the table `runs`, read from the source and
    prepared once);
  - the wait monitor's poll of 2 idle backends, as before 37a211a (the pg_stat_activity view, planned
    each time) and since (PREPAREd once, EXECUTE);
  - a session's clean start (racelab's one string; the reference harness's DISCARD ALL + SET);
  - the scenario's reset UPDATE, its final check, a worker's BEGIN; SELECT 1; claim; COMMIT.
Wall: ms per execution on the client's clock. Server CPU: ms per execution of user + system time
of the postmaster and all its children (reaped ones included), read from /proc before and after —
so the cluster must run on this machine, and anything else it serves at the time counts too; the
kernel's clock tick (10 ms) bounds its resolution to 10 ms / N.

  build/bench/racelab-with-cluster -- /usr/bin/python3 bench/statement_costs.py [N, default 500]
With `-- COMMAND [ARG...]` instead of N it runs COMMAND once (output discarded) and prints one JSON
line: its wall seconds, the cluster's server CPU seconds meanwhile (as above) and COMMAND's own CPU
seconds (user + system of it and its waited-for children).
Exit 0 (with COMMAND: COMMAND's exit status); 3 on a database error or when the cluster's
postmaster is not found.
"""
import json
import os
import re
import subprocess
import sys
import time

import psycopg

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness", "engines", "postgresql",
                      "workspace_state.cc")
SCHEMA = "racelab_statement_costs"
SETUP = """CREATE TABLE runs (id bigint PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('queued','running','succeeded','failed','cancelled')),
  attempts int NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz, finished_at timestamptz, error text);
INSERT INTO runs (id, status) VALUES (1, 'queued')"""
POLL_COLUMNS = ("pid, wait_event_type, wait_event, CASE WHEN wait_event_type = 'Lock' THEN pg_blocking_pids(pid) "
                "WHEN wait_event = 'SafeSnapshot' THEN pg_safe_snapshot_blocking_pids(pid) END, "
                "CASE WHEN wait_event_type = 'Lock' OR wait_event = 'SafeSnapshot' THEN query END")
CLEAN = ("CLOSE ALL;SET SESSION AUTHORIZATION DEFAULT;RESET ALL;DEALLOCATE ALL;UNLISTEN *;"
         "SELECT pg_advisory_unlock_all();DISCARD PLANS;DISCARD TEMP;DISCARD SEQUENCES;"
         f"SET search_path TO {SCHEMA};")
TICK = os.sysconf("SC_CLK_TCK")


def postmaster(dsn):
    """The pid of the postgres process started with -k <the DSN's socket folder>, or None."""
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            cmd = open(f"/proc/{p}/cmdline").read().split("\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith("/postgres") and "-k" in cmd and f"host={cmd[cmd.index('-k') + 1]} " in dsn + " ":
            return int(p)
    return None


def server_cpu_s(pm):
    """User + system seconds of the postmaster (its reaped children included) and its live children."""
    total = 0
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            stat = open(f"/proc/{p}/stat").read()
        except OSError:
            continue
        f = stat[stat.rindex(")") + 2:].split()
        if int(p) == pm:
            total += sum(int(x) for x in f[11:15])
        elif int(f[1]) == pm:
            total += int(f[11]) + int(f[12])
    return total / TICK


def run_command(pm, command):
    """Runs `command`; prints its wall, the server's CPU meanwhile and its own CPU, as JSON."""
    c0, t0 = server_cpu_s(pm), time.monotonic()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
    t1, c1 = time.monotonic(), server_cpu_s(pm)
    own = os.times()
    print(json.dumps({"command": command[0], "exit": done.returncode, "wall_s": round(t1 - t0, 3),
                      "server_cpu_s": round(c1 - c0, 3),
                      "client_cpu_s": round(own.children_user + own.children_system, 3)}))
    return done.returncode


def main():
    dsn = os.environ.get("RACELAB_BENCH_DSN", "")
    pm = postmaster(dsn)
    if pm is None:
        print("statement_costs: no postmaster of RACELAB_BENCH_DSN's socket folder on this machine", file=sys.stderr)
        return 3
    if len(sys.argv) > 2 and sys.argv[1] == "--":
        return run_command(pm, sys.argv[2:])
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    source = open(SOURCE).read()
    version = re.search(r'kVersionCatalogSql = R"sql\((.*?)\)sql"', source, re.S).group(1)
    contents = re.search(r'kTableContentsSql =\s*"(.*?)";', source, re.S).group(1).replace("\\\\", "\\")
    version = (version.replace("{0}", f"'{SCHEMA}'")
               + "UNION ALL SELECT 'contents runs', (" + contents.replace("{}", f"{SCHEMA}.runs") + ")")
    try:
        a, b, c = (psycopg.connect(dsn, autocommit=True) for _ in range(3))
        a.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE; CREATE SCHEMA {SCHEMA}; SET search_path TO {SCHEMA}")
        a.execute(SETUP)
        b.execute("PREPARE racelab_version AS " + version)
        pids = f"{b.info.backend_pid},{c.info.backend_pid}"
        c.execute(f"PREPARE racelab_poll(int[]) AS SELECT {POLL_COLUMNS} FROM pg_stat_activity WHERE pid = ANY($1)")
        claim = ("UPDATE runs SET status = 'running', attempts = attempts + 1, started_at = now() "
                 "WHERE id = 1 AND status = 'queued' RETURNING id")
        kinds = [
            ("checker: EXECUTE racelab_version", b, ["EXECUTE racelab_version"]),
            ("monitor poll, view planned each time (before)", c,
             [f"SELECT {POLL_COLUMNS} FROM pg_stat_activity WHERE pid IN ({pids})"]),
            ("monitor poll, PREPAREd once (now)", c, [f"EXECUTE racelab_poll('{{{pids}}}')"]),
            ("clean start, racelab's one string", a, [CLEAN]),
            ("clean start, DISCARD ALL + SET (2 round trips)", a, ["DISCARD ALL", f"SET search_path TO {SCHEMA}"]),
            ("reset: UPDATE runs ... WHERE id = 1", a,
             ["UPDATE runs SET status = 'queued', attempts = 0, started_at = NULL WHERE id = 1"]),
            ("final: SELECT attempts FROM runs WHERE id = 1", a, ["SELECT attempts FROM runs WHERE id = 1"]),
            ("worker: BEGIN; SELECT 1; claim; COMMIT (4 round trips)", a, ["BEGIN", "SELECT 1", claim, "COMMIT"]),
        ]
        for rnd in (1, 2):
            for name, conn, statements in kinds:
                c0, t0 = server_cpu_s(pm), time.perf_counter()
                for _ in range(n):
                    for s in statements:
                        conn.execute(s, prepare=False)
                t1, c1 = time.perf_counter(), server_cpu_s(pm)
                print(f"round {rnd}  {name:56s} wall {1e3 * (t1 - t0) / n:6.3f} ms  "
                      f"server CPU {1e3 * (c1 - c0) / n:6.3f} ms  per execution (N={n})")
        a.execute(f"DROP SCHEMA {SCHEMA} CASCADE")
    except psycopg.Error as e:
        print(f"statement_costs: {e}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
