#!/usr/bin/python3
"""accuracy.py: the analysis half of `make bench-accuracy` (tests/bench/
accuracy.sh runs the design and then this). Standard library only.

Reads the run rows the instrumented example applications wrote (one CSV per
app), groups them into settings (nprocs + arguments; the median of the
repeats is the truth), splits the settings twice (a random 70/30 split with a
fixed seed, and an extrapolation split: test on the largest --size, train on
the rest) and, for each split, trains and predicts with:

  default/features  mpipredict-train; mpipredict-predict --features
  default/params    the same model; mpipredict-predict --args ... --ntasks N
                    (a refused request counts in "answered", not in the
                    errors)
  params/session1,  the same, trained on one run per training setting:
  params/session2   the first repeat (session 1) or the second (session
                    2), two independent sets of runs of one design; their
                    ratio of MAPEs is the stability of issue 15 (goal 1.5)
  seed/features     mpipredict-train --method seed; --features
  loglog/params     tests/bench/loglog (GSL): log runtime on log parameters,
                    no counters
  loglog/session1,  the same law on each session's runs: how far apart a
  loglog/session2   plain least-squares law's answers are, the yardstick
                    of the stability lines
  last-two          the mean run time of the app's two latest training runs
                    before the setting's first run (the classic scheduler
                    predictor; no interval)
  noise floor       how far the repeats of a test setting sit from their
                    median: mean and largest |run - median| / median

"answered" is the share of the test settings a method gave an answer for
(issue 15's goal for the parameters path: 100 %).

Errors are |predicted - truth| / truth per test setting (the prediction of a
setting is the median over its repeats' predictions where there is one per
run). "exceed" is the share of the test runs (every repeat) whose run time is
above the upper bound given for it. Figures are per app and pooled over the
apps, for all test settings and for those at 1 rank (where the goals of
issue 8 apply).

Issue 15's goals (features <= 1.2x the noise floor, parameters <= 1.5x,
the two sessions within 1.5x of each other) are printed per app and pooled
with a 90 % interval: the test settings resampled with replacement (2,000
times; a setting keeps its error and its repeats' spread together). A goal
is "met" when the whole interval is within it, "NOT met" when all of it is
above, and "not resolved" otherwise: the test settings and repeats of this
run cannot tell, on this machine's noise. The model's own uncertainty
(another training sample) is not in the interval. The stability lines also
say whether the two sessions kept the same terms and the same power laws
of the job parameters (requirement 3: the choice must not flip).

Writes OUT/results.csv, OUT/predictions.csv, OUT/<app>.svg (predicted vs
actual, if gnuplot is there) and prints the table and the goals.
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

FIXED = ["run_id", "app", "build_id", "started_at", "job_id", "nprocs",
         "nnodes", "runtime_s", "args"]
SEED = 20261122
REPORTED = {}  # (app, work folder) -> training's reported errors
ENTRIES = {}   # (app or "all apps", split, method, scope) -> [(setting, p)]
BOOT = 2000    # bootstrap resamples for a goal's interval
SESSION_TERMS = {}  # (app, split, session) -> (fit, kept features)
TRAIN_GAP = {}  # (app, work folder name) -> training runs' repeat gap, %
NOISE_ALL = {}  # app -> noise floor over all its settings


def params_of(args, nprocs):
    """Named numbers of a command line, as regress/params.h names them
    (options followed by a number, or joined by '='), plus nprocs."""
    out = {"nprocs": float(nprocs)}
    toks = args.split()
    pos = 0
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.startswith("-") and len(t) > 1 and not _num(t):
            if "=" in t:
                name, val = t.split("=", 1)
                if _num(val):
                    out[name] = float(val)
            elif i + 1 < len(toks) and _num(toks[i + 1]):
                out[t] = float(toks[i + 1])
                i += 1
        else:
            pos += 1
            name, eq, val = t.partition("=")
            if _num(t):
                out["#%d" % pos] = float(t)
            elif eq and name.isidentifier() and _num(val):
                out[name] = float(val)  # nx=100, as regress/params.h
        i += 1
    return out


def _num(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def read_runs(path):
    with open(path, newline="") as f:
        rd = csv.reader(f)
        header = next(rd)
        if header[:len(FIXED)] != FIXED:
            sys.exit("accuracy: %s: expected the fixed columns %s" %
                     (path, ",".join(FIXED)))
        rows = [r for r in rd if len(r) == len(header)]
    return header, rows


class Setting:
    def __init__(self, nprocs, args):
        self.nprocs = int(float(nprocs))
        self.args = args
        self.rows = []  # indices into the app's rows, in run order
        self.times = []

    @property
    def truth(self):
        return statistics.median(self.times)

    def label(self):
        return "np=%d %s" % (self.nprocs, self.args)


def run(cmd, log):
    """Runs cmd; returns (rc, stdout). stderr goes to the log file."""
    with open(log, "a") as lf:
        lf.write("$ " + " ".join(cmd) + "\n")
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=lf, text=True)
        lf.write(p.stdout)
    return p.returncode, p.stdout


def write_rows(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def predict_lines(out):
    """run_id,predicted,lower,upper lines -> list of tuples."""
    res = []
    for line in out.splitlines():
        f = line.split(",")
        if len(f) == 4:
            res.append((f[0], float(f[1]), float(f[2]), float(f[3])))
    return res


def fresh_db(db, opt):
    """An empty store, or a copy of the profile store (the machine's
    memory curve, --profile-db) when there is one."""
    for f in (db, db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    if opt.profile_db:
        shutil.copyfile(opt.profile_db, db)


def evaluate(app, header, rows, train, test, work, opt, seed_ok):
    """Predictions of every method for the test settings: a dict
    method -> list of (setting, predicted, [(runtime, upper), ...]) or a
    string saying why the method did not run."""
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "log.txt")
    train_rows = [rows[i] for s in train for i in s.rows]
    test_rows = [rows[i] for s in test for i in s.rows]
    tr_csv = os.path.join(work, "train.csv")
    te_csv = os.path.join(work, "test.csv")
    write_rows(tr_csv, header, train_rows)
    write_rows(te_csv, header, test_rows)
    rt = header.index("runtime_s")
    res = {}

    def from_features(db):
        rc, out = run([opt.bin + "/mpipredict-predict", "--csv", "--db", db, "--app",
                       app, "--features", te_csv], log)
        if rc:
            return "mpipredict-predict --features: exit %d" % rc
        by_id = {r[0]: r for r in predict_lines(out)}
        lst = []
        for s in test:
            ps, runs = [], []
            for i in s.rows:
                p = by_id.get(rows[i][0])
                if p is None:
                    return "no prediction for run %s" % rows[i][0]
                ps.append(p[1])
                runs.append((float(rows[i][rt]), p[3]))
            lst.append((s, statistics.median(ps), runs))
        return lst

    def trained(db, extra):
        fresh_db(db, opt)
        rc, out = run([opt.bin + "/mpipredict-train", "--db", db, "--app",
                       app, "--json"] + opt.train_args.get(app, []) + extra
                      + [tr_csv], log)
        if rc == 0 and not extra:
            # What training reports (nested CV), to set against the
            # held-out errors (issue 15, requirement 5).
            try:
                m = json.loads(out)["models"][0]
                REPORTED[(app, work)] = (m.get("cv_mape_pct"),
                                         m.get("cv_mape_params_pct"),
                                         m.get("params_basis"),
                                         m.get("cv_nested"),
                                         m.get("x_mape_pct"))
            except (ValueError, KeyError, IndexError):
                pass
        return rc == 0

    def from_params(db):
        """One request per test setting; a refused one is an entry with
        prediction None (counted in "answered")."""
        lst = []
        for s in test:
            rc, out = run([opt.bin + "/mpipredict-predict", "--csv", "--db", db,
                           "--app", app, "--args", s.args, "--ntasks",
                           str(s.nprocs)], log)
            p = predict_lines(out)
            if rc or len(p) != 1:
                lst.append((s, None, []))
                continue
            lst.append((s, p[0][1], [(t, p[0][3]) for t in s.times]))
        return lst

    db = os.path.join(work, "default.db")
    if trained(db, []):
        res["default/features"] = from_features(db)
        res["default/params"] = from_params(db)
    else:
        res["default/features"] = res["default/params"] = \
            "mpipredict-train failed (see %s)" % log

    # Two sessions of the same design: run k of every training setting.
    # How far apart their inputs are: the training settings' first two
    # runs, as runs_gap measures the test settings'.
    tg = [abs(st.times[0] - st.times[1]) / ((st.times[0] + st.times[1]) / 2)
          for st in train if len(st.times) >= 2
          and st.times[0] + st.times[1] > 0]
    if tg:
        TRAIN_GAP[(app, os.path.basename(work))] = 100 * statistics.mean(tg)
    for k in (1, 2):
        name = "params/session%d" % k
        srows = [rows[s.rows[k - 1]] for s in train if len(s.rows) >= k]
        s_csv = os.path.join(work, "session%d.csv" % k)
        write_rows(s_csv, header, srows)
        sdbk = os.path.join(work, "session%d.db" % k)
        fresh_db(sdbk, opt)
        rc, out = run([opt.bin + "/mpipredict-train", "--db", sdbk,
                       "--app", app, "--json"] + opt.train_args.get(app, [])
                      + [s_csv], log)
        if rc == 0:
            # The terms each session kept (issue 15, requirement 3: the
            # choice must not flip between sessions).
            try:
                m = json.loads(out)["models"][0]
                SESSION_TERMS[(app, os.path.basename(work), k)] = (
                    m.get("fit"),
                    frozenset(t["feature"] for t in m.get("terms", [])),
                    frozenset(law(t) for t in m.get("terms", [])))
            except (ValueError, KeyError, IndexError):
                pass
        res[name] = from_params(sdbk) if rc == 0 else \
            "mpipredict-train on session %d failed (see %s)" % (k, log)

    # The memory regime's beta pinned (MPP_BENCH_BETAS): the same training
    # at each, answered from parameters, beside the chosen one.
    for b in opt.betas.split():
        bdb = os.path.join(work, "beta-%s.db" % b)
        if trained(bdb, ["--memory-beta", b]):
            res["params/beta %s" % b] = from_params(bdb)
        else:
            res["params/beta %s" % b] = \
                "mpipredict-train --memory-beta %s failed (see %s)" % (b, log)

    sdb = os.path.join(work, "seed.db")
    if not seed_ok:
        res["seed/features"] = "mpipredict-train has no --method"
    elif trained(sdb, ["--method", "seed"]):
        res["seed/features"] = from_features(sdb)
    else:
        res["seed/features"] = "mpipredict-train --method seed failed"

    # The log-log baseline on the raw parameters (every run of a training
    # setting is a row, as for mpipredict).
    # A parameter that never changes carries nothing the intercept does
    # not, and a constant 0 (hpcg's --rt=0) has no logarithm.
    names = sorted(n for n in set().union(*(
        params_of(s.args, s.nprocs).keys() for s in train + test))
        if len({params_of(s.args, s.nprocs).get(n) for s in train + test})
        > 1)
    def table(path, sets, times):
        with open(path, "w") as f:
            f.write("runtime_s " + " ".join(names) + "\n")
            for s in sets:
                p = params_of(s.args, s.nprocs)
                for t in times(s):
                    f.write("%r %s\n" % (t, " ".join(
                        repr(p.get(n, 1.0)) for n in names)))
    table(os.path.join(work, "ll-test.txt"), test, lambda s: [1.0])
    # All the runs, then each session's (the stability lines' yardstick:
    # how far apart a plain least-squares law's answers are).
    for name, times in (("loglog/params", lambda s: s.times),
                        ("loglog/session1", lambda s: s.times[:1]),
                        ("loglog/session2", lambda s: s.times[1:2])):
        table(os.path.join(work, "ll-train.txt"), train, times)
        rc, out = run([opt.loglog, os.path.join(work, "ll-train.txt"),
                       os.path.join(work, "ll-test.txt")], log)
        if rc:
            res[name] = "loglog: exit %d" % rc
            continue
        res[name] = [(s, float(line.split()[0]),
                      [(t, float(line.split()[2])) for t in s.times])
                     for s, line in zip(test, out.split("\n"))]

    # The classic predictor: the app's last two training runs before it.
    train_idx = sorted(i for s in train for i in s.rows)
    lst = []
    for s in test:
        first = min(s.rows)
        before = [i for i in train_idx if i < first][-2:]
        if len(before) < 2:
            before = (before + train_idx)[:2]
        p = statistics.mean(float(rows[i][rt]) for i in before)
        lst.append((s, p, [(t, None) for t in s.times]))
    res["last-two"] = lst
    return res


def metrics(entries):
    """(MAPE, max error, exceed rate, answered) in percent, over the
    answered entries; exceed None without bounds, MAPE None when none was
    answered."""
    ans = [e for e in entries if e[1] is not None]
    answered = 100.0 * len(ans) / len(entries) if entries else None
    if not ans:
        return None, None, None, answered
    errs = [abs(p - s.truth) / s.truth * 100 for s, p, _ in ans]
    runs = [(t, u) for _, _, rr in ans for t, u in rr]
    if runs and all(u is not None for _, u in runs):
        exc = 100.0 * sum(t > u for t, u in runs) / len(runs)
    else:
        exc = None
    return statistics.mean(errs), max(errs), exc, answered


def noise(sets):
    dev = [abs(t - s.truth) / s.truth * 100 for s in sets for t in s.times]
    return statistics.mean(dev), max(dev)


def fmt(x):
    return "n/a" if x is None else "%.1f" % x


def plot(opt, app, preds):
    if not shutil.which("gnuplot"):
        sys.stderr.write("bench-accuracy: gnuplot is missing (make deps-bench):"
                         " no plot for %s\n" % app)
        return False
    dat = os.path.join(opt.out, app + ".dat")
    methods = ["default/features", "default/params", "seed/features",
               "loglog/params", "last-two"]
    # Blocks 2k (random split) and 2k+1 (extrapolation) are method k.
    with open(dat, "w") as f:
        for m in methods:
            for split in ("random", "extrapolation"):
                f.write("# %s, %s split\n" % (m, split))
                for s, p in preds.get((split, m), []):
                    f.write("%r %r\n" % (s.truth, p))
                if not preds.get((split, m)):
                    f.write("nan nan\n")
                f.write("\n\n")
    svg = os.path.join(opt.out, app + ".svg")
    plots = ", ".join(
        "'%s' index %d using 1:2 with points pt 7 ps 1 lc %d title '%s', "
        "'%s' index %d using 1:2 with points pt 9 ps 1.2 lc %d notitle"
        % (dat, 2 * k, k + 1, m, dat, 2 * k + 1, k + 1)
        for k, m in enumerate(methods))
    script = """set terminal svg size 720,600 dynamic background '#ffffff'
set output '%s'
set title '%s: predicted vs measured (median of repeats); circles: random 70/30, triangles: extrapolation' noenhanced font ',10'
set xlabel 'measured run time (s)'
set ylabel 'predicted run time (s)'
set logscale xy
set key top left noenhanced
set grid
plot %s, x title 'exact' lc rgb '#888888', 1.2*x title '+-20%%' dt 2 lc rgb '#bbbbbb', x/1.2 notitle dt 2 lc rgb '#bbbbbb'
""" % (svg, app, plots)
    p = subprocess.run(["gnuplot"], input=script, text=True,
                       stderr=subprocess.PIPE)
    if p.returncode:
        sys.stderr.write("gnuplot: " + p.stderr)
    return p.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", required=True, help="folder of <app>.csv")
    ap.add_argument("--out", required=True)
    ap.add_argument("--bin", required=True, help="mpipredict programs")
    ap.add_argument("--loglog", required=True, help="the loglog program")
    ap.add_argument("--apps", default="prime jacobi3d is cg")
    ap.add_argument("--profile-db", default=None,
                    help="a store with the machine profile (memory curve)")
    ap.add_argument("--betas", default="",
                    help="memory regime betas to pin, one training each "
                    "(needs --profile-db)")
    ap.add_argument("--held", action="append", default=[],
                    metavar="APP=PARAM:K",
                    help="a development-set code: its K largest values of "
                    "PARAM are held out (past the range); in range is 5 "
                    "random 70/30 splits of the rest")
    ap.add_argument("--train-args", action="append", default=[],
                    metavar="APP=ARGS", help="more mpipredict-train "
                    "arguments for APP (a development-set recipe's "
                    "DEVSET_TRAIN)")
    opt = ap.parse_args()
    targs = {}
    for t in opt.train_args:
        app, _, rest = t.partition("=")
        targs[app] = rest.split()
    opt.train_args = targs
    held = {}
    for h in opt.held:
        app, _, rest = h.partition("=")
        param, _, k = rest.rpartition(":")
        if not app or not param or not k.isdigit():
            ap.error("--held %s: expected APP=PARAM:K" % h)
        held[app] = (param, int(k))

    rc, helptext = run([opt.bin + "/mpipredict-train", "--help"],
                       os.devnull)
    seed_ok = "--method" in helptext
    results = []  # (app, split, method, scope, nset, nruns, mape, max, exc)
    pooled = {}   # (split, method, scope) -> entries over all apps
    pooled_noise = {}
    pred_rows = []
    for app in opt.apps.split():
        path = os.path.join(opt.runs, app + ".csv")
        if not os.path.exists(path):
            print("accuracy: %s: no runs, skipped" % path)
            continue
        header, rows = read_runs(path)
        rt = header.index("runtime_s")
        settings = {}
        for i, r in enumerate(rows):
            key = (r[FIXED.index("nprocs")], r[FIXED.index("args")])
            s = settings.setdefault(key, Setting(*key))
            s.rows.append(i)
            s.times.append(float(r[rt]))
        sets = sorted(settings.values(), key=lambda s: (s.nprocs, s.args))
        param, nheld = held.get(app, ("-n", 1))
        sizes = {s: params_of(s.args, s.nprocs).get(param) for s in sets}
        if all(v is None for v in sizes.values()):
            print("accuracy: %s: no run shows %s, skipped" % (app, param))
            continue
        top = sorted({v for v in sizes.values() if v is not None})[-nheld:]
        past = [s for s in sets if sizes[s] in top]
        inside = [s for s in sets if sizes[s] not in top]
        # The example apps: one random split of every setting. A
        # development-set code: 5 random splits of its trained range,
        # pooled (a few settings per code: one split is one test setting).
        pool = inside if app in held else sets
        NOISE_ALL[app] = noise(sets)[0]
        randoms = []
        for k in range(5 if app in held else 1):
            shuffled = pool[:]
            random.Random(SEED + k).shuffle(shuffled)
            ntest = max(1, round(0.3 * len(pool)))
            randoms.append((shuffled[ntest:], shuffled[:ntest]))
        splits = {"random": randoms, "extrapolation": [(inside, past)]}
        preds = {}
        for split, parts in splits.items():
            res, test = {}, []
            for k, (train, tst) in enumerate(parts):
                work = os.path.join(opt.out, "work", app, split +
                                    ("" if len(parts) == 1 else "-%d" % k))
                rk = evaluate(app, header, rows, train, tst, work, opt,
                              seed_ok)
                test += tst
                for m, lst in rk.items():
                    if isinstance(res.get(m), str):
                        continue
                    res[m] = lst if isinstance(lst, str) else \
                        res.get(m, []) + lst
            for scope in ("all", "1 rank"):
                sel = [s for s in test if scope == "all" or s.nprocs == 1]
                if not sel:
                    continue
                nm, nx = noise(sel)
                nruns = sum(len(s.times) for s in sel)
                results.append((app, split, "noise floor", scope, len(sel),
                                nruns, nm, nx, None, None))
                pooled_noise.setdefault((split, scope), []).extend(sel)
                for m, lst in res.items():
                    if isinstance(lst, str):
                        results.append((app, split, m, scope, len(sel),
                                        nruns, None, None, None, None, lst))
                        continue
                    ent = [e for e in lst if e[0] in sel]
                    results.append((app, split, m, scope, len(sel), nruns)
                                   + metrics(ent))
                    pooled.setdefault((split, m, scope), []).extend(ent)
                    ENTRIES[(app, split, m, scope)] = ent
                    ENTRIES.setdefault(("all apps", split, m, scope),
                                       []).extend(ent)
            for m, lst in res.items():
                if isinstance(lst, str):
                    continue
                preds[(split, m)] = [(s, p) for s, p, _ in lst
                                     if p is not None]
                for s, p, rr in lst:
                    if p is None:
                        continue
                    ub = rr[0][1] if rr else None
                    pred_rows.append((app, split, m, s.nprocs, s.args,
                                      s.truth, p, ub))
        plot(opt, app, preds)

    for (split, scope), sel in pooled_noise.items():
        nm, nx = noise(sel)
        results.append(("all apps", split, "noise floor", scope, len(sel),
                        sum(len(s.times) for s in sel), nm, nx, None, None))
    for (split, m, scope), ent in pooled.items():
        results.append(("all apps", split, m, scope, len(ent),
                        sum(len(rr) for _, _, rr in ent)) + metrics(ent))

    with open(os.path.join(opt.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["app", "split", "method", "scope", "test_settings",
                    "test_runs", "mape_pct", "max_err_pct", "exceed_pct",
                    "answered_pct", "note"])
        for r in results:
            w.writerow(list(r[:6]) + [fmt(x) for x in r[6:10]]
                       + [r[10] if len(r) > 10 else ""])
    with open(os.path.join(opt.out, "predictions.csv"), "w",
              newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["app", "split", "method", "nprocs", "args", "truth_s",
                    "predicted_s", "upper_s"])
        w.writerows(pred_rows)

    order = ["noise floor", "default/features", "default/params",
             "params/session1", "params/session2", "seed/features",
             "loglog/params", "loglog/session1", "loglog/session2",
             "last-two"]
    print("\n%-9s %-13s %-17s %-6s %4s %8s %8s %8s %9s" % (
        "app", "split", "method", "scope", "sets", "MAPE%", "max%",
        "exceed%", "answered%"))
    key = lambda r: (r[0] == "all apps", r[0], r[1], r[3] != "1 rank",
                     order.index(r[2]) if r[2] in order else len(order),
                     r[2])
    for r in sorted(results, key=key):
        if r[2].startswith("params/beta "):
            continue
        note = ("  " + r[10]) if len(r) > 10 else ""
        print("%-9s %-13s %-17s %-6s %4d %8s %8s %8s %9s%s" % (
            r[0], r[1], r[2], r[3], r[4], fmt(r[6]), fmt(r[7]), fmt(r[8]),
            fmt(r[9]), note))
    goals(results)
    verdicts()
    reported(results)
    stability(results)
    if opt.betas:
        pinned(results, opt.betas.split())
    if held:
        devset_table(results, held)


def devset_table(results, held):
    """Issue 40's table for the development set: per code, the noise
    floor (mean |run - median| / median over all its settings) and MAPE
    with its ratio to it, from features and from parameters, in range
    (5 random 70/30 splits of the trained range, pooled) and past it."""
    get = {(r[0], r[1], r[2]): r for r in results if r[3] == "all"}
    print("\nDevelopment set (issue 40): MAPE %% (ratio to the noise floor); "
          "in range: 5 random 70/30 splits of the trained range; past: "
          "the %s largest sizes, trained on the rest; answered: from "
          "parameters, in range / past" % "/".join(
              str(k) for _, k in held.values()))
    print("| code | size | noise floor | features, in range | features, "
          "past the range | parameters, in range | parameters, past the "
          "range | answered |")
    print("|---|---|---|---|---|---|---|---|")
    for app in sorted(held, key=str.lower):
        nf = NOISE_ALL.get(app)
        if nf is None:
            print("| %s | did not run | | | | | | |" % app)
            continue
        cells, ans = [], []
        for m in ("default/features", "default/params"):
            for split in ("random", "extrapolation"):
                r = get.get((app, split, m))
                if not r or r[6] is None:
                    cells.append("n/a" + (" (%s)" % r[10] if r and
                                          len(r) > 10 else ""))
                    continue
                cells.append("%.1f (%.2fx)" % (r[6], r[6] / nf)
                             if nf > 0 else "%.1f" % r[6])
                if m == "default/params":
                    ans.append(fmt(r[9]))
        print("| %s | %s | %.1f %% | %s | %s |" % (
            app, held[app][0], nf, " | ".join(cells), " / ".join(ans)))


def setting_errors(ent):
    """Per answered test setting: (|predicted - truth| / truth, the
    setting's mean |run - median| / median), in percent."""
    out = []
    for st, p, _ in ent:
        if p is None:
            continue
        dev = statistics.mean(abs(t - st.truth) / st.truth * 100
                              for t in st.times)
        out.append((abs(p - st.truth) / st.truth * 100, dev, len(st.times)))
    return out


def bootstrap(units, stat, rng):
    """stat(units) and its 90 % interval, the units resampled with
    replacement BOOT times; None when stat cannot be formed (it returns
    None)."""
    if not units:
        return None
    r = stat(units)
    if r is None:
        return None
    boots = sorted(x for x in (stat([rng.choice(units) for _ in units])
                               for _ in range(BOOT)) if x is not None)
    return (r, boots[int(0.05 * (len(boots) - 1))],
            boots[int(0.95 * (len(boots) - 1))])


def ratio_interval(pairs, rng):
    """MAPE / noise floor over the settings `pairs` (setting_errors), and
    its 90 % interval by resampling the test settings (a cluster
    bootstrap: a setting keeps its error and its repeats' spread
    together). The floor weighs each setting by its runs, as noise()
    does. None when it cannot be formed."""
    def ratio(sample):
        err = statistics.mean(e for e, _, _ in sample)
        nruns = sum(n for _, _, n in sample)
        floor = sum(d * n for _, d, n in sample) / nruns
        return err / floor if floor > 0 else None
    return bootstrap(pairs, ratio, rng)


def law(term):
    """A kept term's power law in the job parameters, exponents rounded to
    0.1 (two counters of one loop nest, n i and 6 n i, have the same law);
    its name when it has no parameter model."""
    pm = term.get("param_model") or {}
    ex = pm.get("exponents")
    if not pm.get("predictable") or not ex:
        return term["feature"]
    return " ".join("%s^%.1f" % (k, v) for k, v in sorted(ex.items())
                    if abs(v) >= 0.05) or "1"


def same_terms(app, split):
    """Whether the two sessions kept the same terms: "same", or how many
    of them both kept, with each session's fit."""
    t1 = SESSION_TERMS.get((app, split, 1))
    t2 = SESSION_TERMS.get((app, split, 2))
    if app == "all apps":
        pairs = [(SESSION_TERMS.get((a, sp, 1)), SESSION_TERMS.get((a, sp, 2)))
                 for (a, sp, k) in SESSION_TERMS if sp == split and k == 1]
        pairs = [(x, y) for x, y in pairs if x and y]
        same = sum(x[1] == y[1] for x, y in pairs)
        laws = sum(x[2] == y[2] for x, y in pairs)
        return "the same in %d of %d apps, laws in %d" % (same, len(pairs),
                                                          laws)
    if not t1 or not t2:
        return "n/a"
    def cmp(a, b):
        if a == b:
            return "the same (%d)" % len(a)
        return "%d shared of %d / %d" % (len(a & b), len(a), len(b))
    return "%s, laws %s (%s / %s)" % (cmp(t1[1], t2[1]), cmp(t1[2], t2[2]),
                                      t1[0], t2[0])


def stability_interval(app, split, rng):
    """The larger over the smaller of the two sessions' MAPEs, with its
    90 % interval, the test settings resampled in pairs (each setting's
    error under both sessions together)."""
    a = ENTRIES.get((app, split, "params/session1", "all"), [])
    b = {id(st): p for st, p, _ in
         ENTRIES.get((app, split, "params/session2", "all"), [])}
    pairs = [(abs(p - st.truth) / st.truth, abs(b[id(st)] - st.truth)
              / st.truth) for st, p, _ in a
             if p is not None and b.get(id(st)) is not None]
    def ratio(sample):
        m1 = statistics.mean(x for x, _ in sample)
        m2 = statistics.mean(y for _, y in sample)
        lo, hi = sorted((m1, m2))
        return hi / lo if lo > 0 else None
    return bootstrap(pairs, ratio, rng)


def session_gap(app, split, method="params"):
    """How far apart the two sessions' answers are: the mean over the
    test settings of |p1 - p2| / ((p1 + p2) / 2), in percent. The ratio
    of the sessions' MAPEs mixes the models' difference with the test
    runs' noise (two errors near a 0.4 % floor differ by 1.5x by chance);
    this is the models' difference alone, 0 when both sessions answer
    alike."""
    a = ENTRIES.get((app, split, method + "/session1", "all"), [])
    b = {id(st): p for st, p, _ in
         ENTRIES.get((app, split, method + "/session2", "all"), [])}
    gaps = [abs(p - b[id(st)]) / ((p + b[id(st)]) / 2) for st, p, _ in a
            if p is not None and b.get(id(st)) is not None
            and p + b[id(st)] > 0]
    return 100 * statistics.mean(gaps) if gaps else None


def runs_gap(app, split):
    """How far apart the runs themselves are from one repeat to the next
    on the same test settings as session_gap: the mean of |t1 - t2| /
    ((t1 + t2) / 2) over their first two runs, in percent (issue 40,
    requirement 3: the sessions' answers within 1.2x of it)."""
    a = ENTRIES.get((app, split, "params/session1", "all"), [])
    gaps = [abs(st.times[0] - st.times[1]) / ((st.times[0] + st.times[1]) / 2)
            for st, _, _ in a if len(st.times) >= 2
            and st.times[0] + st.times[1] > 0]
    return 100 * statistics.mean(gaps) if gaps else None


def verdict(iv, goal):
    """met when the whole interval is within the goal, NOT met when all
    of it is above, otherwise not resolved: this many test settings and
    repeats cannot tell."""
    if iv is None:
        return "n/a"
    _, lo, hi = iv
    if hi <= goal:
        return "met"
    if lo > goal:
        return "NOT met"
    return "not resolved"


def verdicts():
    """Issue 15's goals, per app and pooled (features <= 1.2x the noise
    floor, parameters <= 1.5x, on both splits), each ratio with a 90 %
    bootstrap interval over the test settings, so that a goal missed by
    the machine's noise is told from one missed by the model."""
    rng = random.Random(SEED)
    print("\nGoals (issue 15) with 90 %% intervals (bootstrap over the test "
          "settings, %d resamples): MAPE / noise floor" % BOOT)
    print("  %-9s %-13s %-6s %4s  %-34s %-34s" % (
        "app", "split", "scope", "sets", "features (goal 1.2)",
        "parameters (goal 1.5)"))
    keys = sorted({(k[0], k[1], k[3]) for k in ENTRIES},
                  key=lambda k: (k[0] == "all apps", k[0], k[1], k[2]))
    for app, split, scope in keys:
        if app != "all apps" and scope != "all":
            continue
        cells = []
        nset = 0
        for m, goal in (("default/features", 1.2), ("default/params", 1.5)):
            pairs = setting_errors(ENTRIES.get((app, split, m, scope), []))
            nset = max(nset, len(pairs))
            iv = ratio_interval(pairs, rng)
            if iv is None:
                cells.append("n/a")
                continue
            cells.append("%.2f [%.2f, %.2f] %s" % (iv + (verdict(iv, goal),)))
        print("  %-9s %-13s %-6s %4d  %-34s %-34s" % (
            app, split, scope, nset, cells[0], cells[1]))


def reported(results):
    """Issue 15, requirement 5: the error training reports (nested CV)
    against the held-out error on the test settings (all of them)."""
    get = {(r[0], r[1], r[2]): r for r in results if r[3] == "all"}
    print("\nReported (training, nested CV) vs held-out MAPE, all test "
          "settings: features, parameters (basis); on the extrapolation "
          "split also the error training reports past its ranges "
          "(x_mape, its extrapolation checks)")
    for (app, work), (cf, cp, basis, nested, xm) in sorted(REPORTED.items()):
        split = os.path.basename(work)
        f = get.get((app, split, "default/features"))
        p = get.get((app, split, "default/params"))
        past = ""
        if split == "extrapolation":
            past = ", past the range %s%% -> %s%%" % (
                fmt(xm), fmt(p[6]) if p else "n/a")
        print("  %-9s %-13s features %s%% -> %s%%, parameters %s%% -> %s%% "
              "(%s%s)%s" % (app, split, fmt(cf), fmt(f[6]) if f else "n/a",
                            fmt(cp), fmt(p[6]) if p else "n/a", basis,
                            "" if nested else ", inner CV", past))


def stability(results):
    """Issue 15: per app and split, the parameters path trained on two
    sessions of runs of the same design (all test settings)."""
    get = {(r[0], r[1], r[2]): r for r in results if r[3] == "all"}
    rng = random.Random(SEED)
    print("\nStability (issue 15), parameters path, all test settings: "
          "MAPE trained on session 1 / session 2, ratio (goal <= 1.5) with "
          "its 90 % interval over the test settings, how far apart the "
          "two sessions' answers are (mean |p1 - p2| over their mean) "
          "against how far apart the runs' own first two repeats are "
          "(goal: answers <= 1.2x runs), answered")
    for (app, split, m), r in sorted(get.items()):
        if m != "params/session1":
            continue
        r2 = get.get((app, split, "params/session2"))
        d = get.get((app, split, "default/params"))
        if r[6] is None or not r2 or r2[6] is None:
            print("  %-9s %-13s did not run" % (app, split))
            continue
        lo, hi = sorted((r[6], r2[6]))
        ratio = hi / lo if lo > 0 else float("inf")
        iv = stability_interval(app, split, rng)
        gap = session_gap(app, split)
        rgap = runs_gap(app, split)
        tgap = TRAIN_GAP.get((app, split))
        lgap = session_gap(app, split, "loglog")
        print("  %-9s %-13s %6.1f%% %6.1f%%  x%.2f %-26s apart %s%% "
              "(runs %s%%: %s; training runs %s%%; a least-squares power "
              "law's sessions %s); answered %s%% / %s%%; "
              "default/params answered %s%%; terms %s" % (
                  app, split, r[6], r2[6], ratio,
                  "[%.2f, %.2f] %s" % (iv[1], iv[2], verdict(iv, 1.5))
                  if iv else "", fmt(gap), fmt(rgap),
                  "x%.2f %s" % (gap / rgap, "met" if gap <= 1.2 * rgap
                                else "NOT met")
                  if gap is not None and rgap else "n/a", fmt(tgap),
                  "%s%%, x%.2f" % (fmt(lgap), lgap / rgap)
                  if lgap is not None and rgap else "n/a",
                  fmt(r[9]), fmt(r2[9]),
                  fmt(d[9]) if d else "n/a", same_terms(app, split)))


def pinned(results, betas):
    """MPP_BENCH_BETAS: the parameters path with the memory regime's beta
    pinned (mpipredict-train --memory-beta) against the chosen one, all
    test settings."""
    get = {(r[0], r[1], r[2]): r for r in results if r[3] == "all"}
    print("\nThe memory regime's beta pinned (--memory-beta), parameters "
          "path, MAPE % over all test settings; chosen: the default "
          "training's own choice")
    print("  %-9s %-13s %8s %s" % ("app", "split", "chosen",
                                   " ".join("%7s" % b for b in betas)))
    for app, split in sorted({(r[0], r[1]) for r in results},
                             key=lambda k: (k[0] == "all apps", k)):
        d = get.get((app, split, "default/params"))
        cells = [get.get((app, split, "params/beta " + b)) for b in betas]
        print("  %-9s %-13s %8s %s" % (
            app, split, fmt(d[6]) if d else "n/a",
            " ".join("%7s" % (fmt(c[6]) if c else "n/a") for c in cells)))


def goals(results):
    """Issue 8's goals, on the pooled 1-rank figures."""
    get = {}
    for r in results:
        if r[0] == "all apps" and r[3] == "1 rank":
            get[(r[1], r[2])] = r
    print("\nGoals (issue 8), all apps pooled, test settings at 1 rank:")

    def line(text, value, ok):
        print("  %-62s %-14s %s" % (text, value,
                                    "n/a" if ok is None else
                                    ("met" if ok else "NOT met")))

    for split in ("random", "extrapolation"):
        nf = get.get((split, "noise floor"))
        d = get.get((split, "default/features"))
        p = get.get((split, "default/params"))
        if not nf or not d or d[6] is None:
            line("%s: mpipredict default" % split, "did not run", None)
            continue
        n = nf[6]
        line("%s: default MAPE <= 1.2 x noise floor (%.1f%%)" % (split, n),
             "%.1f%%" % d[6], d[6] <= 1.2 * n)
        if split == "extrapolation":
            line("extrapolation: default MAPE <= 10%", "%.1f%%" % d[6],
                 d[6] <= 10)
        line("%s: default largest error <= 25%%" % split, "%.1f%%" % d[7],
             d[7] <= 25)
        if p and p[9] is not None:
            line("%s: parameters answered every request" % split,
                 "%.1f%%" % p[9], p[9] >= 100)
        if p and p[6] is not None:
            # Where the parameter path failed for an app, its figures
            # cover fewer settings: say so rather than compare silently.
            part = "" if p[4] == d[4] else " (%d of %d settings)" % (p[4],
                                                                    d[4])
            line("%s: parameters MAPE <= 1.5 x noise floor%s" % (split, part),
                 "%.1f%%" % p[6], p[6] <= 1.5 * n)
        base = [get[(split, m)][6] for m in
                ("seed/features", "loglog/params", "last-two")
                if (split, m) in get and get[(split, m)][6] is not None]
        if base:
            line("%s: default and parameters beat every baseline" % split,
                 "best base %.1f%%" % min(base),
                 d[6] < min(base) and (p is None or p[6] is None
                                       or p[6] < min(base)))
        for m, r in (("default", d), ("parameters", p)):
            if r and r[8] is not None:
                line("%s: %s upper bound exceeded in <= 5%% of runs"
                     % (split, m), "%.1f%%" % r[8], r[8] <= 5)


if __name__ == "__main__":
    main()
