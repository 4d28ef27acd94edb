#!/usr/bin/env python3
"""What an install puts in place is complete: a stripped racelab, the generated man page, the
catalogue, the schemas, README.md and every docs/*.md with every image it shows (docs/*.svg), and the CI
examples (docs/ci/*.yml).

  install_test.py --build build --source .     `cmake --install build --prefix TMP --strip` into a
                                                temporary folder, then the checks (ctest: install)
  install_test.py --prefix /usr --source SRC    the checks on an installed package (scripts/check-deb)
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


def check(cond, what):
    if not cond:
        sys.exit(f"install: {what}")
    print(f"ok: {what}")


def has_debug_info(path):
    sections = subprocess.run(["readelf", "-S", "-W", path], stdout=subprocess.PIPE, text=True, check=True).stdout
    return ".debug_info" in sections or ".symtab" in sections


def checks(prefix, source, man_page):
    racelab = os.path.join(prefix, "bin/racelab")
    check(os.access(racelab, os.X_OK), f"{racelab} is installed")
    size_mb = os.path.getsize(racelab) / 1e6
    check(not has_debug_info(racelab), f"bin/racelab is stripped (no .debug_info, no .symtab): {size_mb:.1f} MB")
    bench = os.path.join(prefix, "bin/racelab-bench")
    if os.path.exists(bench):
        check(not has_debug_info(bench), "bin/racelab-bench is stripped")
    man = os.path.join(prefix, "share/man/man1/racelab.1")
    check(os.path.isfile(man), "share/man/man1/racelab.1 is installed")
    if man_page:
        check(open(man).read() == open(man_page).read(), f"the installed man page is the generated {man_page}")
    else:
        check(".SS racelab convert" in open(man).read(), "the installed man page is the generated one (has convert)")
    share = os.path.join(prefix, "share/racelab")
    scenarios = sorted(os.path.basename(p) for p in glob.glob(os.path.join(source, "scenarios/*.yaml")))
    check(all(os.path.isfile(os.path.join(share, "scenarios", s)) for s in scenarios),
          f"the catalogue: {len(scenarios)} scenarios")
    check(all(os.path.isfile(os.path.join(share, "schemas", os.path.basename(s)))
              for s in glob.glob(os.path.join(source, "schemas/*"))), "the schemas")
    doc = os.path.join(prefix, "share/doc/racelab")
    wanted = ["README.md"] + [os.path.relpath(p, source + "/docs") for pattern in ("*.md", "*.svg", "ci/*.yml")
                              for p in glob.glob(os.path.join(source, "docs", pattern))]
    lacking = [w for w in wanted if not os.path.isfile(os.path.join(doc, w))]
    check(not lacking, f"share/doc/racelab has README.md, docs/*.md, docs/*.svg, ci/*.yml ({len(wanted)} files)"
          + (f"; lacks {lacking}" if lacking else ""))
    missing = []
    for md in glob.glob(os.path.join(doc, "*.md")):
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", open(md).read()):
            if "://" not in target and not os.path.isfile(os.path.join(doc, target)):
                missing.append(f"{os.path.basename(md)}: {target}")
    check(not missing, "every image an installed doc shows is installed beside it"
          + (f"; missing {missing}" if missing else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build")
    ap.add_argument("--prefix")
    a = ap.parse_args()
    if a.prefix:
        checks(a.prefix, a.source, None)
        return
    tmp = tempfile.mkdtemp(prefix="racelab-install-")
    try:
        subprocess.run(["cmake", "--install", a.build, "--prefix", tmp, "--strip"], check=True,
                       stdout=subprocess.DEVNULL)
        checks(tmp, a.source, os.path.join(a.build, "racelab.1"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
