"""Runs the CI examples of docs/ci/ on this machine, as their CI services would, with fakes for what only
a CI service has (tests/python/ci_examples_test.py).

What is real: the YAML (read with PyYAML, a YAML 1.1 parser), every shell line of the race and gate jobs
(bash -eo pipefail, as both services run them), the racelab binary under test and the embedded
PostgreSQL it starts. What is faked: the build job's build step (the test is given the built racelab;
the step writes an empty racelab.deb in its place), apt-get (installing ./racelab.deb links the racelab
under test into the job's PATH), the GitLab API (fakes/curl), and the actions the GitHub example uses
(checkout, cache, upload/download-artifact, dawidd6/action-download-artifact, the JUnit reporter), each
as a few lines below that keep the semantics the example relies on. An action, an expression or a key
this runner does not know is an error, so an example cannot use what the test does not run.

Thread-safety: none needed (one pipeline at a time).
"""
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))


class PipelineError(Exception):
    """The example uses something this runner cannot run faithfully."""


def copy_into(src, dst):
    """Copies a file or a folder's contents into the folder dst."""
    os.makedirs(dst, exist_ok=True)
    if os.path.isdir(src):
        shutil.copytree(src, dst, dirs_exist_ok=True)
    else:
        shutil.copy2(src, os.path.join(dst, os.path.basename(src)))


def check_junit(paths, where):
    """Every file parses as a JUnit XML document (<testsuites> or <testsuite>)."""
    if not paths:
        raise AssertionError(f"{where}: no JUnit file to publish")
    for p in paths:
        root = ET.parse(p).getroot()
        if root.tag not in ("testsuites", "testsuite"):
            raise AssertionError(f"{where}: {p} is not JUnit XML (root <{root.tag}>)")


class Sandbox:
    """A folder per pipeline: each job's workspace, the fakes' PATH folder, the log of fake calls."""

    def __init__(self, root, racelab, catalogue):
        self.root = root
        self.racelab = racelab
        self.catalogue = catalogue
        self.log = os.path.join(root, "fake-calls.log")
        self.outputs = {}  # job label -> its scripts, their output and exit codes (for a failure's message)
        self.printed = {}  # job label -> what its scripts printed (stdout and stderr), nothing else
        self.summaries = {}  # job label -> $GITHUB_STEP_SUMMARY text
        self.junit = {}  # job label -> published JUnit files
        os.makedirs(root, exist_ok=True)

    def job_dir(self, label):
        work = os.path.join(self.root, re.sub(r"[^A-Za-z0-9_.-]", "_", label))
        bin_dir = os.path.join(work, ".fake-bin")
        os.makedirs(os.path.join(work, "workspace"))
        os.makedirs(bin_dir)
        for fake in ("apt-get", "curl"):
            os.symlink(os.path.join(HERE, "fakes", fake), os.path.join(bin_dir, fake))
        return os.path.join(work, "workspace"), bin_dir

    def env(self, bin_dir, extra):
        env = dict(os.environ)
        env.update(
            PATH=bin_dir + os.pathsep + env.get("PATH", ""),
            RACELAB_UNDER_TEST=self.racelab,
            RACELAB_FAKE_LOG=self.log,
            RACELAB_SCENARIOS=self.catalogue,
            CI="true",
        )
        env.update(extra)
        return env

    def shell(self, label, script, cwd, env):
        """Runs `script` with bash -eo pipefail; returns its exit code, keeps its output."""
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        self.outputs[label] = self.outputs.get(label, "") + f"$ {script}\n{proc.stdout}[exit {proc.returncode}]\n"
        self.printed[label] = self.printed.get(label, "") + proc.stdout
        return proc.returncode


# GitHub Actions ---------------------------------------------------------------------------------------


class GitHubRun:
    """One workflow run. `default_branch_artifacts`: name -> folder, the artifacts of the default branch's
    last successful run (what dawidd6/action-download-artifact finds), or {}."""

    def __init__(self, workflow, sandbox, ref_name, default_branch_artifacts):
        self.wf = workflow
        self.sb = sandbox
        self.ref_name = ref_name
        self.baseline_artifacts = default_branch_artifacts
        self.artifacts = {}  # name -> folder
        self.results = {}  # job -> success | failure | skipped
        self.steps_run = {}  # job label -> [(step name, exit code or None when skipped)]

    def context(self, extra):
        ctx = {"github": {"ref_name": self.ref_name, "event": {"repository": {"default_branch": "main"}}},
               "needs": {j: {"result": r} for j, r in self.results.items()}}
        ctx.update(extra)
        return ctx

    @staticmethod
    def lookup(ctx, path):
        value = ctx
        for part in path.split("."):
            if not isinstance(value, dict) or part not in value:
                raise PipelineError(f"unknown expression context {path!r}")
            value = value[part]
        return value

    def evaluate(self, text, ctx, status_ok):
        """A step or job `if:` — &&-joined terms of always(), success(), failure(), PATH, PATH == 'x',
        PATH != 'x' — or a ${{ }} text substitution of PATHs."""
        text = text.strip()
        if text.startswith("${{") and text.endswith("}}"):
            text = text[3:-2].strip()
        result = True
        for term in text.split("&&"):
            term = term.strip()
            m = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", term)
            if term == "always()":
                value = True
            elif term == "success()":
                value = status_ok
            elif term == "failure()":
                value = not status_ok
            elif m:
                try:
                    left = str(self.lookup(ctx, m.group(1)))
                except PipelineError:
                    left = ""  # an unset output is '' in GitHub's expressions
                value = (left == m.group(3)) == (m.group(2) == "==")
            else:
                raise PipelineError(f"unsupported expression {term!r}")
            result = result and value
        if not any(f in text for f in ("always()", "failure()")):
            result = result and status_ok  # success() is implied
        return result

    def substitute(self, text, ctx):
        def one(m):
            expr = m.group(1).strip()
            if expr.startswith("hashFiles("):
                return "0" * 64  # the cache key: the fake cache never hits
            return str(self.lookup(ctx, expr))
        return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))

    def run(self, build_stub):
        for name in self.order():
            job = self.wf["jobs"][name]
            needs = job.get("needs", [])
            needs = [needs] if isinstance(needs, str) else needs
            needs_ok = all(self.results[n] == "success" for n in needs)
            cond = job.get("if")
            run_it = self.evaluate(cond, self.context({}), needs_ok) if cond else needs_ok
            if not run_it:
                self.results[name] = "skipped"
                continue
            matrix = job.get("strategy", {}).get("matrix", {})
            if set(matrix) - {"shard"}:
                raise PipelineError(f"job {name}: only a matrix of shard is run here")
            instances = [{"shard": s} for s in matrix["shard"]] if matrix else [{}]
            ok = True
            for m in instances:
                label = name + "".join(f" ({v})" for v in m.values())
                ok = self.run_job(name, label, job, m, build_stub) and ok
            self.results[name] = "success" if ok else "failure"
        return self.results

    def order(self):
        done, order = set(), []
        jobs = self.wf["jobs"]
        while len(order) < len(jobs):
            ready = [j for j in jobs if j not in done and all(
                n in done for n in ([jobs[j]["needs"]] if isinstance(jobs[j].get("needs"), str)
                                    else jobs[j].get("needs", [])))]
            if not ready:
                raise PipelineError("jobs' needs form a cycle")
            for j in ready:
                done.add(j)
                order.append(j)
        return order

    def run_job(self, name, label, job, matrix, build_stub):
        work, bin_dir = self.sb.job_dir(label)
        summary = os.path.join(work, "..", "step-summary.md")
        open(summary, "w").close()
        steps_ctx = {}
        ok = True
        self.steps_run[label] = []
        for step in job["steps"]:
            ctx = self.context({"matrix": matrix, "steps": steps_ctx})
            step_name = step.get("name", step.get("uses", step.get("run", "")))
            if not (self.evaluate(step["if"], ctx, ok) if "if" in step else ok):
                self.steps_run[label].append((step_name, None))
                continue
            env = {k: self.substitute(v, ctx) for k, v in {**job.get("env", {}), **step.get("env", {})}.items()}
            env.update(GITHUB_STEP_SUMMARY=summary, GITHUB_WORKSPACE=work, GITHUB_ACTIONS="true",
                       GITHUB_REF_NAME=self.ref_name)
            env = self.sb.env(bin_dir, env)
            if "run" in step:
                script = self.substitute(step["run"], ctx)
                if step.get("name") == build_stub:
                    script = ": > racelab.deb  # the build, faked: the test runs the racelab it was given"
                code = self.sb.shell(label, script, work, env)
            else:
                code = self.action(label, step, ctx, work, steps_ctx)
            self.steps_run[label].append((step_name, code))
            ok = ok and code == 0
        self.sb.summaries[label] = open(summary).read()
        return ok

    def action(self, label, step, ctx, work, steps_ctx):
        uses = step["uses"].split("@")[0]
        args = {k: self.substitute(v, ctx) for k, v in step.get("with", {}).items()}
        if uses == "actions/checkout":
            return 0
        if uses == "actions/cache":
            if "id" in step:
                steps_ctx[step["id"]] = {"outputs": {"cache-hit": "false"}}
            return 0
        if uses == "actions/upload-artifact":
            name, path = args["name"], os.path.join(work, args["path"])
            if name in self.artifacts:
                raise AssertionError(f"{label}: artifact {name} uploaded twice (upload-artifact v4 refuses it)")
            if not os.path.exists(path):
                raise AssertionError(f"{label}: nothing at {args['path']} to upload as {name}")
            self.artifacts[name] = os.path.join(self.sb.root, "artifacts", name)
            copy_into(path, self.artifacts[name])
            return 0
        if uses == "actions/download-artifact":
            dest = os.path.join(work, args.get("path", "."))
            if "name" in args:
                copy_into(self.artifacts[args["name"]], dest)
            else:
                names = [n for n in self.artifacts if fnmatch.fnmatch(n, args["pattern"])]
                if not names:
                    raise AssertionError(f"{label}: no artifact matches {args['pattern']}")
                for n in names:
                    copy_into(self.artifacts[n], os.path.join(dest, n))
            return 0
        if uses == "dawidd6/action-download-artifact":
            if args.get("branch") != "main" or args.get("workflow_conclusion") != "success":
                raise AssertionError(f"{label}: the baseline must come from the default branch's last successful run")
            found = self.baseline_artifacts.get(args["name"])
            if found is None:
                if args.get("if_no_artifact_found") != "warn":
                    return 1
                self.sb.outputs[label] = self.sb.outputs.get(label, "") + "warning: no artifact found\n"
                return 0
            copy_into(found, os.path.join(work, args.get("path", ".")))
            return 0
        if uses == "mikepenz/action-junit-report":
            files = sorted(glob.glob(os.path.join(work, args["report_paths"])))
            check_junit(files, label)
            self.sb.junit[label] = files
            return 0
        raise PipelineError(f"{label}: action {uses} is not one this runner fakes")


# GitLab CI --------------------------------------------------------------------------------------------


def merged(base, over):
    """GitLab's `extends`: hashes merged deeply, anything else replaced."""
    out = dict(base)
    for k, v in over.items():
        out[k] = merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


class GitLabPipeline:
    """One pipeline. Predefined variables are stubbed; fakes/curl serves the API from `api_store`."""

    API = "https://gitlab.example/api/v4"

    def __init__(self, config, sandbox, ref_name, api_store, merge_request_iid=None):
        self.cfg = config
        self.sb = sandbox
        self.ref = ref_name
        self.api_store = api_store
        self.mr = merge_request_iid
        self.artifacts = {}  # job label -> folder
        self.results = {}  # job -> success | failed | skipped
        self.jobs = {}
        for name, job in config.items():
            if name in ("workflow", "stages", "variables", "default", "include") or name.startswith("."):
                continue
            while "extends" in job:
                job = merged(config[job["extends"]], {k: v for k, v in job.items() if k != "extends"})
            self.jobs[name] = job

    def predefined(self, work):
        v = {"CI_API_V4_URL": self.API, "CI_PROJECT_ID": "42", "CI_JOB_TOKEN": "job-token",
             "CI_DEFAULT_BRANCH": "main", "CI_COMMIT_REF_NAME": self.ref, "CI_PROJECT_DIR": work,
             "CI_PIPELINE_SOURCE": "merge_request_event" if self.mr else "push",
             "RACELAB_FAKE_GITLAB": self.api_store}
        if self.mr:
            v.update(CI_MERGE_REQUEST_IID=str(self.mr), RACELAB_NOTE_TOKEN="note-token")
        else:
            v["CI_COMMIT_BRANCH"] = self.ref
        return v

    @staticmethod
    def expand(text, env):
        return re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), str(text))

    def run(self, build_stub_job):
        for stage in self.cfg["stages"]:
            for name, job in self.jobs.items():
                if job.get("stage", "test") != stage:
                    continue
                needs = job.get("needs")
                earlier = needs if needs is not None else [
                    n for n, j in self.jobs.items()
                    if self.cfg["stages"].index(j.get("stage", "test")) < self.cfg["stages"].index(stage)]
                ok_before = all(self.results.get(n) == "success" for n in earlier)
                if job.get("when", "on_success") != "always" and not ok_before:
                    self.results[name] = "skipped"
                    continue
                count = int(job.get("parallel", 1))
                ok = True
                for index in range(1, count + 1):
                    label = f"{name} {index}/{count}" if count > 1 else name
                    ok = self.run_job(name, label, job, index, count, earlier, name == build_stub_job) and ok
                self.results[name] = "success" if ok else "failed"
        return self.results

    def run_job(self, name, label, job, index, count, earlier, stub):
        work, bin_dir = self.sb.job_dir(label)
        for dep, folder in self.artifacts.items():
            if dep.split(" ")[0] in earlier:
                copy_into(folder, work)
        env = self.predefined(work)
        if count > 1:
            env.update(CI_NODE_INDEX=str(index), CI_NODE_TOTAL=str(count))
        for k, v in {**self.cfg.get("variables", {}), **job.get("variables", {})}.items():
            env[k] = self.expand(v, env)
        env = self.sb.env(bin_dir, env)
        lines = job.get("before_script", []) + job["script"]
        if stub:
            lines = [": > racelab.deb  # the build, faked: the test runs the racelab it was given"]
        ok = self.sb.shell(label, "\n".join(lines), work, env) == 0
        if "after_script" in job:
            self.sb.shell(label + " after_script", "\n".join(job["after_script"]), work, env)
        art = job.get("artifacts")
        if art and (ok or art.get("when") == "always"):
            folder = os.path.join(self.sb.root, "artifacts", re.sub(r"\W", "_", label))
            for pattern in art.get("paths", []):
                for p in glob.glob(os.path.join(work, pattern)):
                    rel = os.path.relpath(p, work)
                    copy_into(p, os.path.join(folder, os.path.dirname(rel.rstrip("/"))) if os.path.isfile(p)
                              else os.path.join(folder, rel))
            self.artifacts[label] = folder
            junit = art.get("reports", {}).get("junit")
            if junit:
                patterns = [junit] if isinstance(junit, str) else junit
                files = sorted(f for pat in patterns for f in glob.glob(os.path.join(work, pat)))
                check_junit(files, label)
                self.sb.junit[label] = files
        return ok

    def publish(self, job):
        """Makes `job`'s artifacts those of the last successful pipeline of this ref (the jobs artifacts API)."""
        dest = os.path.join(self.api_store, "artifacts", self.ref, job)
        shutil.rmtree(dest, ignore_errors=True)
        copy_into(self.artifacts[job], dest)
