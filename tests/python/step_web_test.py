#!/usr/bin/env python3
"""`racelab step --web` in a real browser (headless Chromium through Debian's chromium-driver and
python3-selenium): racelab walks lock-hold-wait on the embedded PostgreSQL it starts itself and
serves the page on 127.0.0.1 (a free port); the test clicks Next through the scenario and checks,
as the page shows them, b's waiting badge ("waiting for a (transactionid)"), the wait-for arrow
b -> a in the SVG, a's held lock in the lock table (ExclusiveLock on its transaction id, marked new),
b's awaited ShareLock, b's result after a's commit, the scenario's questions (ask:) before b's claim
and a's commit and what happened after each; then Back to start (walk 2) and Quit, after which
racelab exits 0 within its deadline, the port is closed, and no postgres process nor cluster folder is
left. A 1280x720 screenshot of the page while b waits is saved in --out (its path is printed) for a
person to judge; the test also checks that the page needs no scrolling at 1280x720.

A three-session lock queue shows three columns and the arrows b -> a and c -> b.

Usage: step_web_test.py --racelab build/racelab --source . --out build/step_web   (ctest: step_web)
"""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

DEADLINE_S = 20  # every wait below ends by this


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def read_url(proc):
    """The page's URL from racelab's first stdout line (it prints it once the port is bound)."""
    line = proc.stdout.readline()
    m = re.search(r"open (http://127\.0\.0\.1:(\d+)/)", line)
    if not m:
        fail("no URL in racelab's first line: %r (stderr: %s)" % (line, proc.stderr.read()))
    return m.group(1), int(m.group(2))


def postgres_under(base):
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "postgres" in cmd and base in cmd:
            n += 1
    return n


def run_dirs_under(base):
    return [os.path.join(d, x) for d, dirs, _ in os.walk(base) for x in dirs if x.startswith("run-")]


def sigterm_with_a_stream_open(racelab, env, base):
    """SIGTERM while a page's event stream is open: the stream ends with `event: bye`, racelab exits
    143 (interrupted) within the deadline, the port is closed, nothing is left."""
    proc = subprocess.Popen([racelab, "step", "lock-hold-wait", "--web", "0"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url, port = read_url(proc)
        stream = urllib.request.urlopen(url + "events", timeout=DEADLINE_S)
        if stream.readline() != b"event: view\n":
            fail("the event stream does not start with a view")
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rest = stream.read().decode()  # until racelab ends the stream
        rc = proc.wait(timeout=DEADLINE_S)
        print("SIGTERM: exit %d after %.0f ms, the stream ended with bye: %s"
              % (rc, (time.monotonic() - t0) * 1000, "event: bye" in rest))
        if rc != 143 or "event: bye" not in rest:
            fail("SIGTERM: exit %d (want 143), stream tail %r, stderr %s" % (rc, rest[-200:], proc.stderr.read()))
        with socket.socket() as s:
            s.settimeout(2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                fail("port %d still open after SIGTERM" % port)
        if postgres_under(base) or run_dirs_under(base):
            fail("SIGTERM left a postgres process or a cluster folder under " + base)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=DEADLINE_S)


def lock_queue(driver, racelab, env, base, source):
    """Three sessions (tests/fixtures/step/lock_queue.yaml): each session's button runs its own
    next step; with a holding, b waiting for a and c behind b, the page has three columns and two
    arrows, b -> a and c -> b."""
    proc = subprocess.Popen([racelab, "step", os.path.join(source, "tests/fixtures/step/lock_queue.yaml"),
                             "--web", "0"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        url, _ = read_url(proc)
        driver.get(url)
        wait = WebDriverWait(driver, DEADLINE_S)
        js = driver.execute_script
        wait.until(lambda d: js("return document.querySelectorAll('#sessions .col').length") == 3)
        for s, want in (("a", "in transaction"), ("a", "1 row"), ("b", "in transaction"),
                        ("b", "waiting for a"), ("c", "in transaction"), ("c", "waiting for b")):
            wait.until(lambda d: js("const b = document.querySelector("
                                    "'#persession button[data-session=\"' + arguments[0] + '\"]');"
                                    " return b && !b.disabled", s))
            js("document.querySelector('#persession button[data-session=\"' + arguments[0] + '\"]').click()", s)
            wait.until(lambda d: want in js("return document.querySelector("
                                            "'.col[data-session=\"' + arguments[0] + '\"]').textContent", s))
        edges = lambda: js("return Array.from(document.querySelectorAll('#graph .wait-edge'))"
                           ".map(g => g.dataset.waiter + '->' + g.dataset.holder).sort()")
        wait.until(lambda d: edges() == ["b->a", "c->b"])
        print("lock queue: three columns, arrows %s" % edges())
        js("document.querySelector('#quit').click()")
        rc = proc.wait(timeout=DEADLINE_S)
        if rc != 0 or postgres_under(base) or run_dirs_under(base):
            fail("lock queue: exit %d, or something left under %s" % (rc, base))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=DEADLINE_S)


def refusals(racelab, env):
    """Another host than loopback needs a token (checked before any server starts)."""
    for extra, want in ((["--web", "0.0.0.0:0"], "--web-token"),
                        (["--web", "0.0.0.0:0", "--web-token", "short"], "16 to 128"),
                        (["--web-token", "0123456789abcdef0123"], "goes with --web")):
        r = subprocess.run([racelab, "step", "lock-hold-wait"] + extra, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, env=env, timeout=DEADLINE_S)
        if r.returncode != 2 or want not in r.stderr:
            fail("%s: exit %d, stderr %r" % (extra, r.returncode, r.stderr))
    print("refused: 0.0.0.0 without a token, a short token, a token without --web (exit 2)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--racelab", required=True)
    ap.add_argument("--source", required=True, help="the source tree (tests/fixtures/step/)")
    ap.add_argument("--out", required=True, help="a folder for the screenshot and the browser's files")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    base = os.path.join(out, "embedded")   # RACELAB_TMPDIR: the embedded server's folders
    browser_tmp = os.path.join(out, "browser")  # Chromium's profile and temporary files
    os.makedirs(base)
    os.makedirs(browser_tmp)
    env = dict(os.environ, RACELAB_TMPDIR=base)
    proc = subprocess.Popen([args.racelab, "step", "lock-hold-wait", "--set", "hold_ms=0", "--web",
                             "127.0.0.1:0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    driver = None
    try:
        url, port = read_url(proc)
        opts = webdriver.ChromeOptions()
        opts.binary_location = "/usr/bin/chromium"
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1280,720", "--user-data-dir=" + os.path.join(browser_tmp, "profile")):
            opts.add_argument(a)
        service = Service("/usr/bin/chromedriver",
                          env=dict(os.environ, TMPDIR=browser_tmp, HOME=browser_tmp))
        driver = webdriver.Chrome(service=service, options=opts)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})
        driver.get(url)
        wait = WebDriverWait(driver, DEADLINE_S)
        # The page redraws on every event: read it in one script each time, never through element
        # references that the next event makes stale.
        css = lambda sel: driver.find_elements(By.CSS_SELECTOR, sel)
        texts = lambda sel: driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent)", sel)
        text_of = lambda sel: " ".join(texts(sel))
        body = lambda attr: driver.execute_script("return document.body.dataset[arguments[0]] || ''", attr)
        version = lambda: int(body("version") or -1)
        click = lambda sel: driver.execute_script("document.querySelector(arguments[0]).click()", sel)

        def click_until(sel, probe, text):
            """Clicks `sel` and returns the ms until an element matching `probe` first contains
            `text`, timed in the page (a MutationObserver), so the test's own polling adds nothing;
            -1 when it did not within the deadline."""
            return driver.execute_async_script("""
                const [sel, probe, text, done] = arguments, t0 = performance.now();
                const ok = () => Array.from(document.querySelectorAll(probe))
                                      .some((e) => e.textContent.includes(text));
                const obs = new MutationObserver(() => {
                  if (ok()) { obs.disconnect(); done(performance.now() - t0); } });
                obs.observe(document.body, {subtree: true, childList: true, characterData: true,
                                            attributes: true});
                document.querySelector(sel).click();
                setTimeout(() => { obs.disconnect(); done(-1); }, %d);""" % (DEADLINE_S * 1000),
                sel, probe, text)
        started = time.monotonic()
        wait.until(lambda d: "next: a" in text_of("#status"))
        print("page live %.1f s after the browser started" % (time.monotonic() - started))

        def click_next(expect_next):
            """Next, then wait until the page shows `expect_next` as the next session (pushed)."""
            before = version()
            click("#next")
            wait.until(lambda d: version() > before and ("next: " + expect_next) in text_of("#status"))

        # a.begin1, a.claim; b.begin2, b.claim: b waits for a's row lock (its transaction id).
        click_next("a")
        click_next("b")
        click_next("b")
        # "Predict, then watch": b.claim's question, before it runs (lock-hold-wait's ask:).
        wait.until(lambda d: "a has claimed the run" in text_of('#ask .ask.next[data-step="claim"]'))
        badge_ms = click_until("#next", '.badge.waiting[data-session="b"]', "waiting for a (transactionid)")
        if badge_ms < 0:
            fail("no waiting badge on b: " + text_of(".badge"))
        print("waiting badge on b: on the page %.0f ms after the click on Next" % badge_ms)
        # … and what happened, next to the question.
        wait.until(lambda d: "b is waiting for a (transactionid)"
                   in text_of('#ask .ask.asked[data-step="claim"] .answer'))
        arrow = driver.execute_script(
            "const g = document.querySelector('#graph .wait-edge[data-waiter=\"b\"][data-holder=\"a\"]');"
            " return g ? g.querySelector('path').getAttribute('marker-end') : null")
        if arrow != "url(#arrow)":
            fail("no wait-for arrow b -> a in the SVG: " + driver.execute_script(
                "return document.getElementById('graph').innerHTML"))
        wait.until(lambda d: texts('#locks tr[data-session="b"][data-granted="false"]'))
        row = lambda sel: driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0]))"
            ".map(r => Array.from(r.cells).map(c => c.textContent).join(' '))", sel)
        locks = row("#locks tbody tr")
        a_holds = [t for t in row('#locks tr[data-session="a"][data-granted="true"]')
                   if re.search(r"ExclusiveLock transaction \d+ transactionid", t)]
        if not a_holds:
            fail("the lock table lists no ExclusiveLock of a on its transaction id: %s" % locks)
        b_awaits = row('#locks tr[data-session="b"][data-granted="false"]')
        if not any(re.search(r"ShareLock transaction \d+ transactionid", t) for t in b_awaits):
            fail("the lock table lists no ShareLock that b awaits: %s" % locks)
        print("lock table while b waits:\n  " + "\n  ".join(locks))
        scroll = driver.execute_script(
            "return [innerWidth, innerHeight, document.documentElement.scrollWidth,"
            " document.documentElement.scrollHeight]")
        print("viewport %dx%d, page %dx%d" % tuple(scroll))
        if scroll[2] > scroll[0] or scroll[3] > scroll[1]:
            fail("the page scrolls at 1280x720: %s" % scroll)
        shot = os.path.join(out, "step_web_1280x720.png")
        driver.save_screenshot(shot)
        print("screenshot: " + shot)

        # a.commit: b's claim ends (0 rows at read committed), the arrow goes; b.commit: walk over.
        click_next("b")
        wait.until(lambda d: "0 rows" in text_of('.col[data-session="b"] .result'))
        wait.until(lambda d: "b: claim → 0 rows (after waiting for a)"
                   in text_of('#ask .ask.asked[data-step="commit"] .answer'))
        if texts("#graph .wait-edge"):
            fail("a wait-for arrow is left after a's commit")
        click("#next")
        wait.until(lambda d: "walk over" in text_of("#status"))

        # Back to start: walk 2, a's first step next again.
        back_ms = click_until("#back", 'body[data-walk="2"] #status', "next: a")
        if back_ms < 0:
            fail("Back to start did not show walk 2 with a next")
        print("back to start: walk 2 on the page %.0f ms after the click (racelab's reset: %s ms)"
              % (back_ms, body("resetMs")))

        # Quit: the page says so, racelab exits and leaves nothing.
        t0 = time.monotonic()
        click("#quit")
        wait.until(lambda d: "quit" in text_of("#status") or "stopped" in text_of("#status"))
        try:
            rc = proc.wait(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            fail("racelab did not exit within %d s of Quit" % DEADLINE_S)
        print("racelab exited %d, %.0f ms after Quit" % (rc, (time.monotonic() - t0) * 1000))
        err = proc.stderr.read()
        if rc != 0:
            fail("racelab exited %d: %s" % (rc, err))
        with socket.socket() as s:
            s.settimeout(2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                fail("port %d still accepts connections after racelab exited" % port)
        if postgres_under(base):
            fail("a postgres process is left under " + base)
        if run_dirs_under(base):
            fail("cluster folders are left: %s" % run_dirs_under(base))
        print("port %d closed, no postgres process and no cluster folder left" % port)
        lock_queue(driver, args.racelab, env, base, args.source)
        sigterm_with_a_stream_open(args.racelab, env, base)
        # q + Enter in the terminal ends it as the page's Quit does.
        proc = subprocess.Popen([args.racelab, "step", "lock-hold-wait", "--web", "0"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        read_url(proc)
        t0 = time.monotonic()
        proc.stdin.write("q\n")
        proc.stdin.flush()
        rc = proc.wait(timeout=DEADLINE_S)
        print("q + Enter: exit %d after %.0f ms" % (rc, (time.monotonic() - t0) * 1000))
        if rc != 0 or postgres_under(base) or run_dirs_under(base):
            fail("q + Enter: exit %d, or something left under %s" % (rc, base))
        refusals(args.racelab, env)
    finally:
        if driver is not None:
            driver.quit()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=DEADLINE_S)
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(browser_tmp, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
