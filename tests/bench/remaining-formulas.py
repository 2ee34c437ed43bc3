#!/usr/bin/env python3
"""The time left by three formulas on the same progress posts of make
bench-remaining's jobs (docs/benchmarks.md, "Running jobs: remaining
time"): (1 - p) x the prediction from the parameters ("counter"), the
count left at the job's pace since its first post with p > 0 ("rate",
the daemon's answer), and p x that + (1 - p) x the first ("blend").
Per app, the post nearest p = 0.5 and 0.9 (within 0.1), at its own time,
error |estimate - actual left| / T, medians over the jobs.

  remaining-formulas.py DIR...   (a bench output folder: answers.csv,
                                  jobs.csv; $BUILD/bench/remaining{,-devset})
"""
import csv, sys, statistics as st


def load(d):
    jobs = {r["job"]: r for r in csv.DictReader(open(d + "/jobs.csv"))}
    posts = {}
    for r in csv.DictReader(open(d + "/answers.csv")):
        if r["basis"] not in ("counter", "rate", "time", "counters"): continue
        e = float(r["elapsed_s"]) - float(r["reported_s_ago"])
        posts.setdefault(r["job"], {})[round(e, 3)] = (float(r["progress"]), r["basis"])
    return jobs, posts
def variants(pred, T, ps):
    # ps: sorted [(t, p)] posts with counter-based progress
    out = {}
    anchor = None
    for t, p in ps:
        if anchor is None and p > 0: anchor = (t, p)
        actual = T - t
        ests = {"model": max(0, pred - t), "counter": (1 - p) * pred}
        if anchor and p > anchor[1] and t > anchor[0]:
            rate = (p - anchor[1]) / (t - anchor[0])
            r = (1 - p) / rate
        else:
            r = (1 - p) * pred
        ests["rate"] = r
        ests["blend"] = p * r + (1 - p) * (1 - p) * pred
        out[(t, p)] = {k: abs(v - actual) / T for k, v in ests.items()}
    return out
for d in sys.argv[1:]:
    jobs, posts = load(d)
    apps = {}
    for j, pp in posts.items():
        jr = jobs[j]; T = float(jr["actual_s"]); pred = float(jr["predicted_s"])
        ps = sorted((t, p) for t, (p, b) in pp.items() if b in ("counter", "rate"))
        if not ps: continue
        v = variants(pred, T, ps)
        a = apps.setdefault(jr["app"], {"model": [], 0.5: {}, 0.9: {}})
        a["model"].append(abs(pred - T) / T)
        for tg in (0.5, 0.9):
            near = min(v, key=lambda k: abs(k[1] - tg))
            if abs(near[1] - tg) <= 0.1:
                for k, e in v[near].items():
                    a[tg].setdefault(k, []).append(e)
    for app, a in sorted(apps.items()):
        line = "%-9s model %5.1f" % (app, 100 * st.median(a["model"]))
        for tg in (0.5, 0.9):
            n = len(a[tg].get("counter", []))
            line += " | %.1f n=%d " % (tg, n) + " ".join("%s %5.1f" % (k, 100 * st.median(a[tg][k])) for k in ("counter", "rate", "blend")) if n else " | %.1f none" % tg
        print(line)
