#!/usr/bin/env python3
"""make bench-remaining's runs and table (tests/bench/remaining.sh builds
the apps and writes settings.tsv: app, role, ranks, params, args,
program, folder).

1. Training runs: every `train` setting REPEATS times, a fresh seeded
   order each round, rows in OUT/train/<app>.csv; mpipredict-train on
   them into OUT/models.db (OUT/train-args.tsv: more arguments per app).
2. mpipredictd on that store (loopback port, a token).
3. Jobs: each `job` line is one job, run with SLURM_JOB_ID made up,
   MPIPREDICT_URL, the token and MPIPREDICT_PROGRESS_S, while this
   script asks GET /v1/jobs/{id} every POLL seconds. Its row (OUT/jobs/)
   gives the actual total T (runtime_s: MPI_Init to MPI_Finalize, the
   clock elapsed_s runs on) and the arguments mpipredict-predict prices
   for the model's own error, |predicted - T| / T (the prediction from
   the parameters, as at submission).

An answer (elapsed e, remaining r, interval [lower, upper] of the time
left) is scored by err = |r - (T - e)| / T, which is also
|e + r - T| / T (the error of the predicted total): the two are one
number. rel = |r - (T - e)| / (T - e) is the error relative to the time
that was actually left. Per job: the answer whose progress is nearest
0.5 and nearest 0.9, two ways:
  answered  the answers as a user gets them: e is the post's elapsed
            time plus the time since the post, the counters as old as
            the post (up to the progress interval + the post's delay)
  at post   the freshest answer to each post, taken back to the post's
            own elapsed time (e - reported_s_ago): how good the estimate
            is for the counters it has; at a site's interval (60 s) of
            jobs of hours the two are close, at 0.1 s of runs of one
            second they are not
Per app: medians over its jobs, and how many of the intervals held the
actual time left. Goal (issue 37): err at 0.5 <= the model's error, at
0.9 < half of it.
"""
import argparse
import csv
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request


def read_settings(path):
    out = []
    with open(path) as f:
        for line in f:
            app, role, np_, params, args, exe, rundir = \
                line.rstrip("\n").split("\t")
            out.append(dict(app=app, role=role, np=int(np_), params=params,
                            args=args, exe=exe, rundir=rundir))
    return out


def run_env(s, runs, extra=None):
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MPIPREDICT_APP=s["app"],
               MPIPREDICT_RUNS=runs + "/")
    if s["params"]:
        env["MPIPREDICT_PARAMS"] = s["params"]
    else:
        env.pop("MPIPREDICT_PARAMS", None)
    env.update(extra or {})
    return env


def command(s):
    return ["timeout", "-k", "5", "300", "mpirun", "-np", str(s["np"]),
            s["exe"]] + s["args"].split()


def training_runs(train, opt, runs):
    shutil.rmtree(runs, ignore_errors=True)
    os.makedirs(runs)
    total, k, t0 = len(train) * opt.repeats, 0, time.time()
    print("training runs: %d settings x %d repeats = %d runs, interleaved"
          % (len(train), opt.repeats, total), flush=True)
    failed = 0
    with open(os.path.join(opt.out, "train.err"), "w") as err:
        for r in range(opt.repeats):
            order = train[:]
            random.Random("round %d" % r).shuffle(order)
            for s in order:
                p = subprocess.run(command(s), cwd=s["rundir"],
                                   env=run_env(s, runs,
                                               {"MPIPREDICT_FORWARD": "0"}),
                                   stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=err)
                failed += p.returncode != 0
                k += 1
                if k % 20 == 0 or k == total:
                    el = time.time() - t0
                    print("  %d/%d runs, %.0f s, about %.0f s left"
                          % (k, total, el, el * (total - k) / k), flush=True)
    if failed:
        print("  %d training runs exited non-zero (see %s/train.err)"
              % (failed, opt.out))


def train_models(apps, opt, runs, db, log):
    extra = {}
    ta = os.path.join(opt.out, "train-args.tsv")
    if os.path.exists(ta):
        with open(ta) as f:
            for line in f:
                a, args = line.rstrip("\n").split("\t", 1)
                extra[a] = args.split()
    for f in (db, db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    cv = {}
    for app in apps:
        p = subprocess.run([opt.bin + "/mpipredict-train", "--db", db,
                            "--app", app, "--json"] + extra.get(app, [])
                           + [os.path.join(runs, app + ".csv")],
                           stdout=subprocess.PIPE, stderr=log, text=True)
        if p.returncode != 0:
            sys.exit("bench-remaining: mpipredict-train failed for %s "
                     "(see %s)" % (app, log.name))
        try:
            m = json.loads(p.stdout)["models"][0]
            cv[app] = m.get("cv_mape_params_pct")
        except (ValueError, KeyError, IndexError):
            cv[app] = None
    return cv


def start_daemon(opt, db, log):
    port = os.path.join(opt.out, "daemon.port")
    token = os.path.join(opt.out, "token")
    with open(token, "w") as f:
        f.write("bench-remaining-token\n")
    if os.path.exists(port):
        os.remove(port)
    # --retrain-rows: the jobs' own rows (forwarded) must not retrain
    # the model the jobs are measured against.
    d = subprocess.Popen([opt.bin + "/mpipredictd", "--config", "none",
                          "--db", db, "--listen", "127.0.0.1:0",
                          "--port-file", port, "--token-file", token,
                          "--retrain-rows", "1000000"],
                         stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(port) and os.path.getsize(port) > 0:
            break
        if d.poll() is not None:
            break
        time.sleep(0.05)
    else:
        d.terminate()
        sys.exit("bench-remaining: mpipredictd did not start (see %s)"
                 % log.name)
    if d.poll() is not None:
        sys.exit("bench-remaining: mpipredictd exited (see %s)" % log.name)
    with open(port) as f:
        return d, "http://127.0.0.1:%s" % f.read().strip(), token


def ask(url, job, token):
    req = urllib.request.Request(url + "/v1/jobs/" + job, headers={
        "Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(req, timeout=2) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, None
    except (urllib.error.URLError, OSError, ValueError):
        return 0, None


def run_job(s, jid, opt, url, token_file, runs, err):
    with open(token_file) as f:
        token = f.read().strip()
    env = run_env(s, runs, {
        "SLURM_JOB_ID": jid, "MPIPREDICT_URL": url,
        "MPIPREDICT_TOKEN_FILE": token_file,
        "MPIPREDICT_PROGRESS_S": str(opt.progress_s)})
    answers = []
    t0 = time.monotonic()
    p = subprocess.Popen(command(s), cwd=s["rundir"], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=err)
    while p.poll() is None:
        t = time.monotonic()
        st, body = ask(url, jid, token)
        if st == 200 and body:
            answers.append(body)
        time.sleep(max(0.0, opt.poll_s - (time.monotonic() - t)))
    return p.returncode, time.monotonic() - t0, answers


def job_row(runs, app, jid):
    path = os.path.join(runs, app + ".csv")
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["job_id"] == jid:
                return row
    return None


def predicted(opt, db, app, args, np_):
    p = subprocess.run([opt.bin + "/mpipredict-predict", "--csv", "--db", db,
                        "--app", app, "--args", args, "--ntasks", str(np_)],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    for line in p.stdout.splitlines():
        f = line.split(",")
        if len(f) == 4:
            return float(f[1])
    return None


def num(v):
    return v if isinstance(v, (int, float)) else None


def scored(answers, T):
    """Per answer, both views; only answers from while the program ran
    (elapsed <= T) and with an estimate."""
    out = []
    for a in answers:
        e, r = num(a.get("elapsed_s")), num(a.get("remaining_s"))
        pr, ago = num(a.get("progress")), num(a.get("reported_s_ago")) or 0
        lo, up = num(a.get("lower_s")), num(a.get("upper_s"))
        if e is None or r is None or pr is None or e > T:
            continue
        basis = a.get("progress_basis")
        # Back at the post: basis time counts the elapsed time down,
        # counters do not move between posts.
        back = ago if basis == "time" else 0
        ep = e - ago
        rp = r + back if r > 0 else r
        lop = lo + back if lo is not None and lo > 0 else lo
        upp = up + back if up is not None and up > 0 else up
        out.append(dict(progress=pr, basis=basis, ago=ago,
                        post=round(ep, 3),
                        answered=(e, r, lo, up), at_post=(ep, rp, lop, upp)))
    return out


# An answer farther than this from the target progress does not stand
# for it: a job whose progress sticks at 0 has no answer "at 50 %".
NEAR = 0.1


def pick(sc, view, target, T):
    """The answer nearest the target: by its own progress (answered, at
    post; none within NEAR: None), or by the job's actual share of its
    run time e / T (by_time: where a stuck progress shows)."""
    if view == "by_time":
        if not sc:
            return None
        a = min(sc, key=lambda x: abs(x["answered"][0] / T - target))
        return judged(a, "answered", T)
    if view == "at_post":
        fresh = {}
        for a in sc:
            if a["post"] not in fresh or a["ago"] < fresh[a["post"]]["ago"]:
                fresh[a["post"]] = a
        sc = list(fresh.values())
    if not sc:
        return None
    a = min(sc, key=lambda x: abs(x["progress"] - target))
    if abs(a["progress"] - target) > NEAR:
        return None
    return judged(a, view, T)


def judged(a, view, T):
    e, r, lo, up = a[view]
    left = T - e
    return dict(progress=a["progress"], true_progress=e / T,
                err=abs(r - left) / T,
                rel=abs(r - left) / left if left > 0 else None,
                held=(lo is not None and up is not None and
                      lo <= left <= up), basis=a["basis"])


VIEWS = {"answered": "answered (the answer whose progress is nearest "
                       "0.5 / 0.9, within 0.1; as a user gets it)",
         "at_post": "at post (the freshest answer to each post, at the "
                    "post's elapsed time)",
         "by_time": "by time (the answer at 50 % / 90 % of the job's "
                    "actual run time, whatever its progress)"}


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def pct(v):
    return "-" if v is None else "%.1f" % (100 * v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--progress-s", type=float, default=0.1)
    ap.add_argument("--poll-s", type=float, default=0.1)
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--reanalyse", action="store_true",
                    help="print the table of OUT/raw.json, run nothing")
    opt = ap.parse_args()
    settings = read_settings(opt.settings)
    apps = list(dict.fromkeys(s["app"] for s in settings))
    train = [s for s in settings if s["role"] == "train"]
    jobs = [s for s in settings if s["role"] == "job"]
    truns = os.path.join(opt.out, "train")
    jruns = os.path.join(opt.out, "jobs")
    db = os.path.join(opt.out, "models.db")
    if opt.reanalyse:
        return analyse(opt, apps)
    load0 = load_now()
    print("load before the runs: " + load0, flush=True)
    if not opt.reuse or not os.path.isdir(truns):
        training_runs(train, opt, truns)
    log = open(os.path.join(opt.out, "log.txt"), "w")
    cv = train_models(apps, opt, truns, db, log)
    d, url, token = start_daemon(opt, db, log)
    shutil.rmtree(jruns, ignore_errors=True)
    os.makedirs(jruns)
    raw = []
    try:
        print("jobs: %d, progress every %g s, asked every %g s"
              % (len(jobs), opt.progress_s, opt.poll_s), flush=True)
        with open(os.path.join(opt.out, "jobs.err"), "w") as err:
            for k, s in enumerate(jobs):
                jid = "rem-%s-%d-%d" % (s["app"], k, os.getpid())
                rc, wall, answers = run_job(s, jid, opt, url, token, jruns,
                                            err)
                row = job_row(jruns, s["app"], jid)
                if row is None:
                    print("  %s: %s %s: no row (exit %d)"
                          % (jid, s["app"], s["args"], rc))
                    continue
                T = float(row["runtime_s"])
                pred = predicted(opt, db, s["app"], row["args"], s["np"])
                raw.append(dict(app=s["app"], job=jid, np=s["np"],
                                args=row["args"], T=T, wall=wall, pred=pred,
                                answers=answers))
                sc = scored(answers, T)
                print("  %s: %s np=%d T=%.2f s, predicted %s, %d posts, "
                      "%d answers, basis %s" % (
                          jid, row["args"], s["np"], T,
                          "%.2f" % pred if pred else "-",
                          len({a["post"] for a in sc}), len(sc),
                          "/".join(sorted({str(a["basis"]) for a in sc}))),
                      flush=True)
    finally:
        d.terminate()
        d.wait()
    with open(os.path.join(opt.out, "raw.json"), "w") as f:
        json.dump(dict(raw=raw, cv=cv, load=[load0, load_now()],
                       progress_s=opt.progress_s, poll_s=opt.poll_s), f)
    return analyse(opt, apps)


def load_now():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def analyse(opt, apps):
    """The table, from OUT/raw.json (the jobs' answers as polled)."""
    with open(os.path.join(opt.out, "raw.json")) as f:
        saved = json.load(f)
    cv, (load0, load1) = saved["cv"], saved["load"]
    results, rows = [], []
    for j in saved["raw"]:
        T, pred = j["T"], j["pred"]
        sc = scored(j["answers"], T)
        res = dict(app=j["app"], job=j["job"], np=j["np"], args=j["args"],
                   T=T, pred=pred,
                   model=abs(pred - T) / T if pred else None,
                   answers=len(sc), posts=len({a["post"] for a in sc}))
        for view in VIEWS:
            for tg in (0.5, 0.9):
                res[(view, tg)] = pick(sc, view, tg, T)
        results.append(res)
        for a in sc:
            e, r, lo, up = a["answered"]
            rows.append([j["job"], j["app"], "%.6g" % T, "%.4f" % e,
                         "%.4f" % r, lo, up, "%.4f" % a["progress"],
                         a["basis"], "%.3f" % a["ago"],
                         "%.4f" % (abs(r - (T - e)) / T)])
    with open(os.path.join(opt.out, "answers.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job", "app", "actual_s", "elapsed_s", "remaining_s",
                    "lower_s", "upper_s", "progress", "basis",
                    "reported_s_ago", "err"])
        w.writerows(rows)
    with open(os.path.join(opt.out, "jobs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        head = ["job", "app", "nprocs", "args", "actual_s", "predicted_s",
                "model_err", "posts"]
        for view in VIEWS:
            for tg in (0.5, 0.9):
                head += ["%s_%g_%s" % (view, tg, k) for k in
                         ("progress", "true_progress", "err", "rel", "held")]
        w.writerow(head)
        for r in results:
            line = [r["job"], r["app"], r["np"], r["args"], r["T"],
                    r["pred"], r["model"], r["posts"]]
            for view in VIEWS:
                for tg in (0.5, 0.9):
                    x = r[(view, tg)] or {}
                    line += [x.get(k) for k in ("progress", "true_progress",
                                                "err", "rel", "held")]
            w.writerow(line)
    print()
    print("bench-remaining: remaining-time error of GET /v1/jobs/{id} "
          "against the model's own error (%, medians over each app's "
          "jobs; err = |remaining - actual left| / actual total; rel: "
          "over the actual time left; held: intervals that held the "
          "actual time left)")
    goal_ok = True
    for view in VIEWS:
        print()
        print("view: %s" % VIEWS[view])
        print("%-9s %4s %5s %6s %6s | %4s %4s %5s %5s %5s | %4s %4s %5s %5s "
              "%5s | %s" % ("app", "jobs", "posts", "T_s", "model", "p.5",
                            "t", "err", "rel", "held", "p.9", "t", "err",
                            "rel", "held", "goal"))
        for app in apps:
            rs = [r for r in results if r["app"] == app]
            if not rs:
                print("%-9s    0 (no job gave a row)" % app)
                continue
            m = med([r["model"] for r in rs])
            cols = []
            ok = True
            for tg in (0.5, 0.9):
                xs = [r[(view, tg)] for r in rs if r[(view, tg)]]
                e = med([x["err"] for x in xs])
                if not xs:
                    cols.append("%4s %4s %5s %5s %5s" % ("-", "-", "-", "-",
                                                         "0/0"))
                else:
                    cols.append("%4.2f %4.2f %5s %5s %2d/%-2d" % (
                        med([x["progress"] for x in xs]),
                        med([x["true_progress"] for x in xs]), pct(e),
                        pct(med([x["rel"] for x in xs])),
                        sum(x["held"] for x in xs), len(xs)))
                # The goal needs most jobs to have an answer there.
                if e is None or m is None or 2 * len(xs) < len(rs):
                    ok = False
                elif tg == 0.5:
                    ok = ok and e <= m
                else:
                    ok = ok and e < m / 2
            if view == "answered":
                goal_ok = goal_ok and ok
            print("%-9s %4d %5.0f %6.2f %6s | %s | %s | %s"
                  % (app, len(rs), med([r["posts"] for r in rs]),
                     med([r["T"] for r in rs]), pct(m), cols[0], cols[1],
                     ("met" if ok else "not met") if view != "by_time"
                     else "-"))
    print()
    print("p: the answers' progress; t: the job's actual share of its run "
          "time at them (e / T); goal: err at 0.5 <= model, at 0.9 < "
          "model / 2, judged on the answers near p (none near: not met)")
    print("model: |predicted from the parameters - actual| / actual; the "
          "training's cv MAPE (parameters path) per app: " +
          ", ".join("%s %s" % (a, "-" if cv.get(a) is None
                              else "%.1f %%" % cv[a]) for a in apps))
    print("load before the runs: %s; after: %s (a shared machine: "
          "the figures are preliminary)" % (load0, load1))
    print("results: %s/jobs.csv, %s/answers.csv" % (opt.out, opt.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
