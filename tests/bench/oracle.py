#!/usr/bin/env python3
"""What the best possible predictor scores against bench-accuracy's noise
floor (issue 40's goals are ratios to it).

Usage: oracle.py OUT_A OUT_B
  OUT_A, OUT_B: two output folders of `make bench-accuracy` (MPP_BENCH_OUT)
  of the same design, run at different times (their runs/APP.csv).

The noise floor is mean |run - median| / median over a setting's repeats,
the median being the repeats' own. With 3 repeats one deviation is 0 by
construction, so the floor is below the error of a predictor that knows
the setting's true median: by simulation that predictor scores 1.41x the
floor for normal run times, 1.33x for Laplace ones (printed first). A
program's own median from the other folder's runs of the same setting is
the nearest measured stand-in for that predictor: no model of the program
can know more. Printed per app: its MAPE on this folder's runs, the
folder's floor, and their ratio, both ways round, then pooled.
"""
import collections
import csv
import os
import random
import statistics
import sys


def simulated(draw, n=3, trials=100000, seed=20261129):
    """The true-median predictor's error over the floor, runs from draw()
    (true median 0), n repeats per setting."""
    rng = random.Random(seed)
    floor = oracle = 0.0
    for _ in range(trials):
        x = [draw(rng) for _ in range(n)]
        m = statistics.median(x)
        floor += sum(abs(v - m) for v in x)
        oracle += sum(abs(v) for v in x)
    return oracle / floor


def runs(folder, app):
    by = collections.defaultdict(list)
    with open(os.path.join(folder, "runs", app + ".csv"), newline="") as f:
        for r in csv.DictReader(f):
            by[(r["nprocs"], r["args"])].append(float(r["runtime_s"]))
    return by


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: oracle.py OUT_A OUT_B (two bench-accuracy outputs)")
    a, b = sys.argv[1:]
    print("true median known, 3 repeats: %.2fx the floor (normal), %.2fx "
          "(Laplace)" % (
              simulated(lambda r: r.gauss(0, 1)),
              simulated(lambda r: r.expovariate(1) * r.choice((-1, 1)))))
    apps = sorted(f[:-4] for f in os.listdir(os.path.join(a, "runs"))
                  if f.endswith(".csv") and
                  os.path.exists(os.path.join(b, "runs", f)))
    to = tf = 0.0
    for app in apps:
        err = flo = 0.0
        n = 0
        for x, y in ((a, b), (b, a)):
            other, this = runs(x, app), runs(y, app)
            for s, t in this.items():
                if s not in other or len(t) < 2:
                    continue
                pm, m = statistics.median(other[s]), statistics.median(t)
                err += sum(abs(v - pm) / v for v in t)
                flo += sum(abs(v - m) / m for v in t)
                n += len(t)
        if not n or not flo:
            continue
        print("%-10s the other folder's median: MAPE %5.1f %%, floor %4.1f "
              "%%, %.2fx" % (app, 100 * err / n, 100 * flo / n, err / flo))
        to += err
        tf += flo
    if tf:
        print("pooled: %.2fx" % (to / tf))


if __name__ == "__main__":
    main()
