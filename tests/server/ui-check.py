#!/usr/bin/env python3
"""ui-check.py: loads mpipredictd's staff page in headless Chromium and checks
what the browser shows against a direct query of the store.

    ui-check.py --db STORE --url http://127.0.0.1:PORT --out DIR
                [--shots DIR] [--users yes|no]

Drives Chromium over its DevTools protocol on a pipe (--remote-debugging-pipe:
fd 3 to the browser, fd 4 from it, NUL-separated JSON), so one browser loads
every view, reads the DOM with querySelectorAll and hears every console
message and failed load (Runtime.consoleAPICalled, Runtime.exceptionThrown,
Log.entryAdded). For each view it saves DIR/ui-<view>.png (and a copy under
--shots). Checks: one point per prediction with an outcome (the ids drawn
are the ids the store joins to an actual run time), the numbers of the
models, events, summary, users and predictions tables equal to SQL over the store,
no console error. Prints one line per failed check and exits 1; 0 when all
hold. Not for: anything but tests.
"""
import argparse
import base64
import fcntl
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

FAILS = []


def check(what, want, got):
    if want != got:
        FAILS.append("%s: expected %r, got %r" % (what, want, got))


class Browser:
    def __init__(self, profile):
        # The browser reads fd 3 and writes fd 4: the pipe ends are moved
        # above 10 first, so that the dup2 calls in the child cannot clobber
        # one another.
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_r, to_w, from_r, from_w)]
        for fd in (to_r, to_w, from_r, from_w):
            os.close(fd)
        to_r, self.to_w, self.from_r, from_w = hi

        def child():
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + profile, "--remote-debugging-pipe",
             "--hide-scrollbars", "about:blank"],
            close_fds=False, preexec_fn=child, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(profile, "chromium.log"), "w"))
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.seq = 0
        self.events = []
        self.session = None

    def _read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True):
        self.seq += 1
        msg = {"id": self.seq, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read()
            if m.get("id") == self.seq:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m["result"]
            self.events.append(m)

    def wait_event(self, method):
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                del self.events[i]
                return m
        while True:
            m = self._read()
            if m.get("method") == method:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except RuntimeError:
            pass
        self.proc.wait(timeout=30)


def errors_in(events):
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", []))))
        elif m.get("method") == "Runtime.exceptionThrown":
            out.append("exception: %s" % p["exceptionDetails"].get("text"))
        elif m.get("method") == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
            out.append("log: %s %s" % (p["entry"].get("text"), p["entry"].get("url", "")))
    return out


DOM_JS = r"""JSON.stringify({
  points: Array.from(document.querySelectorAll('#main circle.pt')).map(c => +c.dataset.id),
  epoints: Array.from(document.querySelectorAll('#main circle.ept')).map(c => +c.dataset.id),
  apppoints: Array.from(document.querySelectorAll('.per-app circle.pt')).map(c => +c.dataset.id),
  charts: document.querySelectorAll('svg.chart').length,
  nav: Array.from(document.querySelectorAll('header a')).map(a => a.textContent),
  tables: Object.fromEntries(Array.from(document.querySelectorAll('table[id]')).map(t =>
    [t.id, Array.from(t.rows).slice(1).map(r => Array.from(r.cells).map(c => c.textContent))]))
})"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--url", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shots")
    ap.add_argument("--users", default="yes")
    ap.add_argument("--selftest", action="store_true",
                    help="load a page with a console error: must be caught")
    a = ap.parse_args()
    profile = tempfile.mkdtemp(prefix="chromium-", dir=a.out)
    b = Browser(profile)
    try:
        targets = b.call("Target.getTargets", session=False)["targetInfos"]
        page = [t for t in targets if t["type"] == "page"][0]
        b.session = b.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, session=False)["sessionId"]
        for d in ("Page", "Runtime", "Log"):
            b.call(d + ".enable")
        b.call("Emulation.setDeviceMetricsOverride", {"width": 1360, "height": 900, "deviceScaleFactor": 1, "mobile": False})

        def load(url):
            b.events = [e for e in b.events if False]
            b.call("Page.navigate", {"url": url})
            b.wait_event("Page.loadEventFired")
            dom = json.loads(b.call("Runtime.evaluate", {"expression": DOM_JS, "returnByValue": True})["result"]["value"])
            # Let late console messages arrive: one more round trip.
            b.call("Runtime.evaluate", {"expression": "1"})
            return dom, errors_in(b.events)

        if a.selftest:
            _, errs = load("data:text/html,<link rel=icon href='data:,'><script>console.error('seen')</script>")
            check("self-test: a console.error is caught", True, any("seen" in e for e in errs))

        db = sqlite3.connect("file:%s?mode=ro" % a.db, uri=True)
        have_jobs = (db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'jobs'").fetchone()[0] > 0 and
                     db.execute("SELECT EXISTS (SELECT 1 FROM jobs)").fetchone()[0] == 1)
        outcome = ("SELECT CAST(job_id AS TEXT) AS jid, max(runtime_s) AS actual FROM jobs WHERE runtime_s > 0 GROUP BY 1"
                   if have_jobs else
                   "SELECT job_id AS jid, max(runtime_s) AS actual FROM runs WHERE job_id <> '' GROUP BY 1")
        views = {"models": "/", "accuracy": "/ui/accuracy", "users": "/ui/users", "predictions": "/ui/predictions"}
        doms = {}
        for name, path in views.items():
            dom, errs = load(a.url + path)
            doms[name] = dom
            check("%s: console errors" % name, [], errs)
            body = b.call("Runtime.evaluate", {"expression": "document.body.scrollHeight", "returnByValue": True})
            height = min(int(body["result"]["value"]) + 8, 820)
            shot = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                     "clip": {"x": 0, "y": 0, "width": 1360, "height": height, "scale": 1}})
            png = os.path.join(a.out, "ui-%s.png" % name)
            with open(png, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            if a.shots:
                shutil.copy(png, a.shots)

        # Accuracy: one point per prediction with an outcome, same ids.
        want_ids = sorted(r[0] for r in db.execute(
            "SELECT p.id FROM predictions p JOIN (%s) o ON o.jid = p.job_id" % outcome))
        check("accuracy: ids of the points drawn (predicted vs actual)", want_ids, sorted(doms["accuracy"]["points"]))
        check("accuracy: ids of the points drawn (error over time)", want_ids, sorted(doms["accuracy"]["epoints"]))
        apps = db.execute("SELECT count(*) FROM models WHERE active = 1").fetchone()[0]
        check("accuracy: each point once more in its app's chart (when more than one app)",
              want_ids if apps > 1 else [], sorted(doms["accuracy"]["apppoints"]))
        summary = {r[0]: r for r in doms["accuracy"]["tables"]["summary"]}
        for app, n, within, late in db.execute(
                "SELECT p.app, count(*), sum(o.actual >= p.lower_s AND o.actual <= p.upper_s), sum(o.actual > p.upper_s) "
                "FROM predictions p JOIN (%s) o ON o.jid = p.job_id GROUP BY p.app" % outcome):
            row = summary.get(app)
            check("accuracy summary %s: n, within, past upper" % app, [str(n), str(within), str(late)],
                  row and [row[1], row[3], row[4]])

        # Models: every version with its runs, kept terms, CV error and
        # the error past the training ranges.
        rows = doms["models"]["tables"]["versions"]
        pct = lambda x: "-" if x is None else "%.1f" % x
        want = [[app, str(v), str(nt), str(nk), pct(cv), pct(xm)]
                for app, v, nt, nk, cv, xm in db.execute(
                    "SELECT a.name, m.version, m.ntrain, (SELECT count(*) FROM model_terms t WHERE t.model_id = m.id), m.cv_mape, m.x_mape "
                    "FROM models m JOIN apps a ON a.id = m.app_id ORDER BY a.name, m.version DESC")]
        check("models: app, version, runs, kept terms, CV error, error past the range", want,
              [[r[0], r[1], r[3], r[4], r[5], r[6]] for r in rows])
        check("models: some error past the range measured", True,
              any(xm is not None for (xm,) in db.execute("SELECT x_mape FROM models")))
        check("models: active rows", db.execute("SELECT count(*) FROM models WHERE active = 1").fetchone()[0],
              len(doms["models"]["tables"]["active"]))
        # Model events: newest first, at most 50: app, version, kind, reason.
        want = [[app, "-" if v is None else str(v), kind, reason]
                for app, v, kind, reason in db.execute(
                    "SELECT a.name, m.version, e.kind, e.reason FROM model_events e JOIN apps a ON a.id = e.app_id "
                    "LEFT JOIN models m ON m.id = e.model_id ORDER BY e.id DESC LIMIT 50")]
        check("models: events (app, version, kind, reason), newest first", want,
              [r[1:] for r in doms["models"]["tables"].get("events", [])])
        check("models: some event recorded", True, len(want) > 0)

        # Users: requested vs used, factor and freed node-hours.
        if a.users == "yes" and have_jobs:
            want = []
            for user, n, req, used, within, freed in db.execute(
                    "SELECT j.user, count(*), sum(j.time_limit_s), sum(j.runtime_s), "
                    "sum(q.up >= j.runtime_s), "
                    "sum(CASE WHEN q.up >= j.runtime_s AND j.time_limit_s > q.up THEN j.nodes * (j.time_limit_s - q.up) ELSE 0 END) "
                    "FROM jobs j LEFT JOIN (SELECT job_id, max(upper_s) AS up FROM predictions GROUP BY job_id) q "
                    "ON q.job_id = CAST(j.job_id AS TEXT) WHERE j.time_limit_s > 0 AND j.runtime_s > 0 GROUP BY j.user"):
                want.append([user, str(n), "%.2f" % (req / 3600), "%.2f" % (used / 3600), "%.2f" % (req / used),
                             str(within or 0), "%.2f" % ((freed or 0) / 3600)])
            got = doms["users"]["tables"].get("users", [])
            check("users: user, jobs, requested h, used h, factor, within, freed node-h", sorted(want), sorted(got))
            check("users: some over-request measured", True, len(want) > 0)
        elif a.users == "no":
            check("users hidden: no users table", None, doms["users"]["tables"].get("users"))
            check("users hidden: no Users tab", False, "Users" in doms["models"]["nav"])

        # Recent predictions: newest first, their ids and outcomes.
        rows = doms["predictions"]["tables"]["recent"]
        want = [[str(i), "" if act is None else ("%.1f" if act < 100 else "%.0f") % act]
                for i, act in db.execute(
                    "SELECT p.id, o.actual FROM predictions p LEFT JOIN (%s) o ON o.jid = p.job_id "
                    "ORDER BY p.id DESC LIMIT 100" % outcome)]
        acol = -2
        check("predictions: id and actual run time of each row", want, [[r[0], r[acol]] for r in rows])
        late = db.execute("SELECT count(*) FROM (SELECT p.id, p.upper_s, o.actual FROM predictions p JOIN (%s) o "
                          "ON o.jid = p.job_id ORDER BY p.id DESC LIMIT 100) WHERE actual > upper_s" % outcome).fetchone()[0]
        check("predictions: rows marked past upper bound", late, sum(r[-1] == "past upper bound" for r in rows))
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)
    for f in FAILS:
        print(f)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
