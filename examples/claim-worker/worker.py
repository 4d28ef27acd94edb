"""A job worker, as an application would write it: claim run 1, then execute it.

Two ways to claim (the first argument):
  naive  SELECT the run's status, and if it is 'queued', UPDATE it to 'running' — the check and
         the write are two statements, so two workers can both see 'queued' and both run the job;
  cas    the same SELECT, then UPDATE ... WHERE status = 'queued' RETURNING id: the write checks
         again (a compare-and-swap) and only one worker gets a row back.

Between the SELECT and the UPDATE it calls pause("after_read"): under racelab (RACELAB_PAUSE set)
it waits there until the scenario releases it; run on its own it does not wait at all.
"""
import os
import socket
import sys

try:
    import psycopg
except ModuleNotFoundError:
    sys.exit(f"worker.py needs psycopg 3 (Debian: apt install python3-psycopg), "
             f"and {sys.executable} has none")


def pause(name):
    """racelab's pause point: write NAME\\n, wait for go\\n (a no-op outside racelab)."""
    path = os.environ.get("RACELAB_PAUSE")
    if path:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(path)
            s.sendall(name.encode() + b"\n")
            s.recv(3)


def claim(conn, mode):
    status = conn.execute("SELECT status FROM runs WHERE id = 1").fetchone()[0]
    pause("after_read")
    if status != "queued":
        return False
    if mode == "naive":
        conn.execute("UPDATE runs SET status = 'running', attempts = attempts + 1 WHERE id = 1")
        return True
    won = conn.execute("UPDATE runs SET status = 'running', attempts = attempts + 1 "
                       "WHERE id = 1 AND status = 'queued' RETURNING id").fetchone()
    return won is not None


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "naive"
    if mode not in ("naive", "cas"):
        sys.exit(f"usage: worker.py naive|cas (got {mode!r})")
    me = os.environ.get("RACELAB_SESSION", "worker")
    # RACELAB_DSN puts the connection in the trial's schema, its transactions at the trial's level.
    with psycopg.connect(os.environ["RACELAB_DSN"], autocommit=True) as conn:
        with conn.transaction():
            if claim(conn, mode):
                conn.execute("INSERT INTO executions (worker) VALUES (%s)", [me])
                print(f"{me}: claimed run 1 and executed it")
            else:
                print(f"{me}: run 1 was taken")


if __name__ == "__main__":
    main()
