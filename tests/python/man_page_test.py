#!/usr/bin/env python3
"""The man page the build writes (build/racelab.1, from `racelab --help-man`) documents every option and
positional of every subcommand that `racelab SUB --help` lists, each under its subcommand's heading,
and every global option; it is what --help-man prints now (not stale); groff formats it without a
warning.

Usage: man_page_test.py --racelab build/racelab --page build/racelab.1   (ctest: man_page)
"""
import argparse
import re
import subprocess
import sys


def run(*args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True).stdout


def section(text, name):
    """The lines of a CLI11 help section ("Options:", "Positionals:", "Subcommands:")."""
    m = re.search(rf"^{name}:\n((?:  .*\n|\s*\n)*)", text, re.M)
    return m.group(1).splitlines() if m else []


def options(help_text):
    names = []
    for line in section(help_text, "Options"):
        m = re.match(r"  (-[^\s]+)", line)
        if m:
            names += [n for n in m.group(1).split(",") if n not in ("-h", "--help")]
    positionals = [m.group(1) for line in section(help_text, "Positionals") if (m := re.match(r"  (\w[\w-]*)", line))]
    return names, positionals


def roff(name):
    return name.replace("\\", "\\e").replace("-", "\\-")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--racelab", required=True)
    ap.add_argument("--page", required=True)
    a = ap.parse_args()
    page = open(a.page).read()
    missing = []

    top = run(a.racelab, "--help")
    subcommands = [m.group(1) for line in section(top, "Subcommands") if (m := re.match(r"  (\w+)", line))]
    if len(subcommands) < 5:
        sys.exit(f"racelab --help lists only {subcommands}")
    for sub in subcommands:
        m = re.search(rf"^\.SS racelab {sub}\n(.*?)(?=^\.S[SH] )", page, re.M | re.S)
        if not m:
            missing.append(f"{sub}: no '.SS racelab {sub}' section")
            continue
        body = m.group(1)
        names, positionals = options(run(a.racelab, sub, "--help"))
        missing += [f"{sub}: option {n}" for n in names if not re.search(rf"\\fB{re.escape(roff(n))}\\fR", body)]
        missing += [f"{sub}: positional {p}" for p in positionals if f"\\fI{roff(p)}\\fR" not in body]
        print(f"ok: {sub}: {len(names)} options, {len(positionals)} positionals checked")
    names, _ = options(top)
    glob = re.search(r"^\.SH GLOBAL OPTIONS\n(.*?)(?=^\.SH )", page, re.M | re.S)
    missing += [f"global option {n}" for n in names if not glob or roff(n) not in glob.group(1)]
    if missing:
        sys.exit(f"{a.page} lacks what --help lists:\n  " + "\n  ".join(missing))

    if page != run(a.racelab, "--help-man"):
        sys.exit(f"{a.page} is not what racelab --help-man prints now (rebuild racelab)")
    print("ok: the page is what racelab --help-man prints")
    lint = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", a.page], stderr=subprocess.PIPE, text=True)
    if lint.returncode != 0 or lint.stderr:
        sys.exit(f"groff warns about {a.page}:\n{lint.stderr}")
    print("ok: groff -man -ww formats it without a warning")


if __name__ == "__main__":
    main()
