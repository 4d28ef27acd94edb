#!/usr/bin/env python3
"""Every catalogue scenario (scenarios/*.yaml) passes the shipped JSON Schema
(schemas/racelab-scenario.schema.json) when read as a YAML 1.1 tool reads it: PyYAML, then
python3-jsonschema. (tests/unit/report_schema_test.cc checks the same files read by yaml-cpp, with
valijson.) A key PyYAML reads as a boolean, a number or a date (`on:`, `yes:`, `1:`) is named with its file
and path: JSON has text keys only, so a JSON Schema check from Python would see "True".

A control proves the check sees the difference: `retry: { on: [...] }` plain fails, quoted passes;
a step's `ask:` passes as text and fails as a list or on a barrier.

Usage: scenario_schema_test.py --source .   (ctest: scenario_schema_python)
"""
import argparse
import glob
import json
import os
import sys

import jsonschema
import yaml


def to_json(node, path, problems):
    """The YAML tree as JSON would hold it; a non-text key is a problem (its path)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if not isinstance(k, str):
                problems.append(f"{path}: key {k!r} is read as {type(k).__name__}, not text (quote it)")
                k = json.dumps(k)
            out[k] = to_json(v, f"{path}.{k}" if path else k, problems)
        return out
    if isinstance(node, list):
        return [to_json(v, f"{path}[{i}]", problems) for i, v in enumerate(node)]
    if node is None or isinstance(node, (str, bool, int, float)):
        return node
    problems.append(f"{path}: {node!r} is read as {type(node).__name__}, which JSON has not (quote it)")
    return str(node)


def problems_of(text, validator):
    problems = []
    doc = to_json(yaml.safe_load(text), "", problems)
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.path)):
        problems.append(f"{'.'.join(str(p) for p in e.path) or '(top)'}: {e.message[:300]}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    source = ap.parse_args().source
    with open(os.path.join(source, "schemas/racelab-scenario.schema.json")) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)

    control = ("name: c\ntitle: c\nteaches: c\nsessions:\n  - name: w\n    retry: { %s: [\"40001\"] }\n"
               "    steps: [begin, commit]\n")
    plain, quoted = problems_of(control % "on", validator), problems_of(control % '"on"', validator)
    if not plain or quoted or not problems_of(control % "sqlstates", validator) == []:
        sys.exit(f"control failed: plain on -> {plain}, quoted \"on\" -> {quoted}")
    print("ok: control: a plain `on:` key fails, a quoted one and `sqlstates:` pass")

    # `ask:` (racelab step's question): text on a step step mode holds; a list, or one on a barrier, fails.
    step = "name: c\ntitle: c\nteaches: c\nsessions:\n  - name: w\n    steps:\n      - %s\n"
    asks = {"{ sql: SELECT 1, ask: 'Will w wait?' }": True,
            "{ sql: SELECT 1, ask: [Will, w, wait] }": False,
            "{ barrier: go, ask: 'Who is first?' }": False}
    for text, ok in asks.items():
        if (problems_of(step % text, validator) == []) != ok:
            sys.exit(f"control failed: {text} should {'pass' if ok else 'fail'} the schema")
    print("ok: control: `ask:` text on an sql step passes; a list, or `ask:` on a barrier, fails")

    files = sorted(glob.glob(os.path.join(source, "scenarios/*.yaml")))
    if len(files) < 10:
        sys.exit(f"only {len(files)} catalogue files found under {source}/scenarios")
    failed = 0
    for path in files:
        with open(path) as f:
            problems = problems_of(f.read(), validator)
        for p in problems:
            print(f"{os.path.relpath(path, source)}: {p}", file=sys.stderr)
        failed += bool(problems)
    if failed:
        sys.exit(f"{failed} of {len(files)} catalogue scenarios fail the shipped schema as PyYAML reads them")
    print(f"ok: {len(files)} catalogue scenarios pass schemas/racelab-scenario.schema.json (PyYAML + jsonschema)")


if __name__ == "__main__":
    main()
