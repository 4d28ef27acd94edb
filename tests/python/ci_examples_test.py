#!/usr/bin/env python3
"""The CI examples, docs/ci/github-actions.yml and docs/ci/gitlab-ci.yml, are valid YAML 1.1 (PyYAML)
and work as written: their shell steps run here, in order — race shards, merge, compare against a
baseline artifact, summary — with the racelab under test (tests/python/ci_runner.py says what is
faked), so an example cannot drift from the CLI.

Pipelines, each on a catalogue of one scenario (guarded-cas-claim with one worker: 3 results over 4
shards, so one shard is empty; every count the same in every trial) to keep the test small and exact:
  1. GitHub, the default branch, no baseline yet: green; the gate says there is nothing to compare.
  2. GitHub, a pull request, its baseline the artifact of run 1: green; the comparison is in the job
     summary ($GITHUB_STEP_SUMMARY) and its JUnit file is published.
  3. GitLab, a merge request whose claim counts two attempts (its final check fails in every trial),
     the baseline run 1's report served by the jobs artifacts API: red — the race shards of those
     results and the gate exit 1 — and the summary, naming the results, is posted as a note.
  4. GitLab, the same merge request fixed: green, a note without a regression.

Usage: ci_examples_test.py --racelab build/racelab --source .   (ctest: ci_examples)
"""
import argparse
import os
import shutil
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_runner  # noqa: E402

CLAIM = ("            UPDATE runs SET status = 'running', attempts = attempts + 1, started_at = now()\n"
         "            WHERE id = 1 AND status = 'queued' RETURNING id\n")
BUILD_STEP = "Build the racelab package"


def check(cond, what, sandbox=None, label=None):
    if cond:
        print(f"ok: {what}")
        return
    if sandbox is not None:
        for job, out in sandbox.outputs.items():
            if label is None or job.startswith(label):
                print(f"--- {job}\n{out}", file=sys.stderr)
    raise AssertionError(what)


def load(path):
    with open(path) as f:
        doc = yaml.safe_load(f)  # YAML 1.1: a plain `on` key would be True, `{{` in a flow mapping an error
    check(isinstance(doc, dict), f"{path} parses as a YAML mapping")
    return doc


def catalogue(root, name, regressed):
    folder = os.path.join(root, name)
    os.makedirs(folder)
    text = open(os.path.join(SOURCE, "scenarios", "guarded-cas-claim.yaml")).read()
    # One worker: every count is the same in every trial (no lock wait, no 40001 that timing decides), so
    # the honest pipelines cannot see a difference from the baseline by chance.
    check(text.count("\n  workers: 2\n") == 1 and text.count(CLAIM) == 1 and text.count("\n      - barrier: go\n") == 1,
          "guarded-cas-claim is as this test expects")
    text = text.replace("\n  workers: 2\n", "\n  workers: 1\n").replace("\n      - barrier: go\n", "\n")
    if regressed:  # the claim counts 2 attempts: final attempts = 1 fails in every trial at every level
        text = text.replace(CLAIM, CLAIM.replace("attempts + 1", "attempts + 2"))
    with open(os.path.join(folder, "guarded-cas-claim.yaml"), "w") as f:
        f.write(text)
    return folder


def installs(sandbox):
    """The packages each apt-get install asked for."""
    lines = open(sandbox.log).read().splitlines() if os.path.exists(sandbox.log) else []
    return [set(l.split()[2:]) for l in lines if l.startswith("apt-get install")]


def github(tmp, honest):
    wf = load(os.path.join(SOURCE, "docs/ci/github-actions.yml"))
    check(set(wf) >= {"on", "jobs"} and True not in wf, "github-actions.yml: `on` is read as a key, not as true")
    build = [s for s in wf["jobs"]["build"]["steps"] if s.get("name") == BUILD_STEP]
    check(len(build) == 1 and "scripts/bootstrap --build-only" in build[0]["run"]
          and "RACELAB_BUILD_TESTS=OFF" in build[0]["run"] and "RACELAB_BUILD_BENCHMARKS=OFF" in build[0]["run"]
          and "scripts/build racelab" in build[0]["run"],
          "github: the build job builds only the racelab binary, with only the build packages")

    sb = ci_runner.Sandbox(os.path.join(tmp, "gh-main"), RACELAB, honest)
    main = ci_runner.GitHubRun(wf, sb, "main", {})
    results = main.run(BUILD_STEP)
    check(results == {"build": "success", "race": "success", "gate": "success"},
          f"github, default branch, no baseline: every job passes ({results})", sb)
    check("no baseline yet" in sb.printed["gate"], "github: without a baseline the gate says so", sb, "gate")
    check("guarded-cas-claim" in sb.summaries["gate"], "github: the run's summary is on the job page", sb, "gate")
    check(len([l for l in main.steps_run if l.startswith("race")]) == 4, "github: 4 race shards ran")
    check(all(p <= {"./racelab.deb"} for p in installs(sb)), "github: the jobs install only the racelab package")
    check(any(f.endswith("racelab.junit.xml") for f in sb.junit["gate"]), "github: the merged JUnit is published")

    sb = ci_runner.Sandbox(os.path.join(tmp, "gh-pr"), RACELAB, honest)
    pr = ci_runner.GitHubRun(wf, sb, "feature", main.artifacts)
    results = pr.run(BUILD_STEP)
    check(results == {"build": "success", "race": "success", "gate": "success"},
          f"github, pull request against the baseline: every job passes ({results})", sb)
    check("no baseline" not in sb.printed["gate"], "github: the pull request's gate found the baseline", sb, "gate")
    check(("Compare with the baseline", 0) in pr.steps_run["gate"] and "racelab compare: BASE" in sb.printed["gate"],
          "github: the gate compared with the baseline: exit 0", sb, "gate")
    check("racelab compare: BASE" in sb.summaries["gate"] or "racelab compare" in sb.summaries["gate"],
          "github: the comparison is in the job summary", sb, "gate")
    check(any(f.endswith("racelab-compare.junit.xml") for f in sb.junit["gate"]),
          "github: the comparison's JUnit is published")
    return os.path.join(main.artifacts["racelab-reports"], "racelab.json")


def gitlab(tmp, honest, regressed, baseline):
    cfg = load(os.path.join(SOURCE, "docs/ci/gitlab-ci.yml"))
    api = os.path.join(tmp, "gitlab-api")
    os.makedirs(os.path.join(api, "artifacts/main/gate/racelab-reports"))
    shutil.copy(baseline, os.path.join(api, "artifacts/main/gate/racelab-reports/racelab.json"))
    build = cfg["build"]
    check("scripts/bootstrap --build-only" in build["script"] and "scripts/build racelab" in build["script"]
          and build["variables"].get("RACELAB_BUILD_TESTS") == "OFF" and "cache" in build,
          "gitlab: the build job builds only the racelab binary, cached, with only the build packages")

    sb = ci_runner.Sandbox(os.path.join(tmp, "gl-regressed"), RACELAB, regressed)
    pipeline = ci_runner.GitLabPipeline(cfg, sb, "feature", api, merge_request_iid=7)
    results = pipeline.run("build")
    check(results == {"build": "success", "race": "failed", "gate": "failed"},
          f"gitlab, merge request with a regression: the race and the gate fail ({results})", sb)
    check(all(sb.outputs[f"race {k}/4"].endswith("[exit 1]\n") for k in (1, 2, 3)),
          "gitlab: each shard with a regressed result exits 1", sb, "race")
    check(sb.outputs["race 4/4"].endswith("[exit 0]\n"), "gitlab: the empty shard passes", sb, "race 4/4")
    check("merged verdict: fail" in sb.printed["gate"] and "racelab compare: BASE" in sb.printed["gate"]
          and sb.outputs["gate"].endswith("[exit 1]\n"),
          "gitlab: merge joins the failing shards (exit 0), the gate compares and exits 1", sb, "gate")
    note = open(os.path.join(api, "notes/7.md")).read()
    check("guarded-cas-claim" in note and "read committed" in note and "serializable" in note,
          "gitlab: the merge-request note names the regressed results", sb, "gate")
    check(all(p <= {"./racelab.deb", "curl", "ca-certificates"} for p in installs(sb)),
          "gitlab: the jobs install only the racelab package and curl")

    os.remove(os.path.join(api, "notes/7.md"))
    sb = ci_runner.Sandbox(os.path.join(tmp, "gl-fixed"), RACELAB, honest)
    results = ci_runner.GitLabPipeline(cfg, sb, "feature", api, merge_request_iid=7).run("build")
    check(results == {"build": "success", "race": "success", "gate": "success"},
          f"gitlab, the merge request fixed: every job passes ({results})", sb)
    check(os.path.getsize(os.path.join(api, "notes/7.md")) > 0, "gitlab: the summary is posted as a note")


def main():
    global SOURCE, RACELAB
    ap = argparse.ArgumentParser()
    ap.add_argument("--racelab", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    SOURCE, RACELAB = os.path.abspath(a.source), os.path.abspath(a.racelab)
    tmp = tempfile.mkdtemp(prefix="racelab-ci-examples-")
    try:
        honest = catalogue(tmp, "honest", regressed=False)
        regressed = catalogue(tmp, "regressed", regressed=True)
        baseline = github(tmp, honest)
        gitlab(tmp, honest, regressed, baseline)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("ci_examples: both examples parse and run end to end")


if __name__ == "__main__":
    main()
