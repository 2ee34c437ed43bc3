#!/usr/bin/env python3
"""How often a perfect model meets issue 40's stability requirement.

Usage: stability_oracle.py [TRIALS]

The requirement: two trainings on independent repeats of one design
answer within 1.2x the runs' own repeat-to-repeat difference.
`make bench-accuracy` measures it per code-set as one number: the two
sessions' answers past the range, mean |p1 - p2| / their mean over the
test settings, against the same for the test runs' first two repeats
(and, printed beside it, for the training runs of the two sessions).

Here the run time is exactly a power law of the size and each run has
independent relative noise; each session fits log time on log size
(the true form: no choice of terms, no bias) to one run per size at the
development set's spacing (six sizes, 16 to 56) and answers the next two
(80 and 104). Printed: the share of trials within 1.2x of each gap, and
the median ratio. Whatever fails here fails for any model.
"""
import math
import random
import statistics
import sys

TRAIN = [16, 24, 32, 40, 48, 56]
TEST = [80, 104]


def fit(xs, ys):
    """Least squares of log y on log x: (intercept, slope)."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    b = sum((u - mx) * (v - my) for u, v in zip(lx, ly)) / sum(
        (u - mx) ** 2 for u in lx)
    return my - b * mx, b


def gap(a, b):
    return statistics.fmean(abs(u - v) / ((u + v) / 2) for u, v in zip(a, b))


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rng = random.Random(20261201)
    for noise in (0.01, 0.03, 0.10):
        for k in (1.0, 2.0):
            law = [x**k for x in TRAIN]
            truth = [x**k for x in TEST]
            ok_test = ok_train = 0
            ratios = []
            for _ in range(trials):
                s1 = [t * (1 + rng.gauss(0, noise)) for t in law]
                s2 = [t * (1 + rng.gauss(0, noise)) for t in law]
                p1 = [math.exp(c + b * math.log(x))
                      for c, b in [fit(TRAIN, s1)] for x in TEST]
                p2 = [math.exp(c + b * math.log(x))
                      for c, b in [fit(TRAIN, s2)] for x in TEST]
                r1 = [t * (1 + rng.gauss(0, noise)) for t in truth]
                r2 = [t * (1 + rng.gauss(0, noise)) for t in truth]
                apart = gap(p1, p2)
                ok_test += apart <= 1.2 * gap(r1, r2)
                ok_train += apart <= 1.2 * gap(s1, s2)
                ratios.append(apart / gap(s1, s2))
            print("noise %4.1f %%, time ~ size^%.0f: within 1.2x of the "
                  "test runs' gap in %.0f %% of trials, of the training "
                  "runs' in %.0f %%; median answers / training gap %.2f" % (
                      100 * noise, k, 100 * ok_test / trials,
                      100 * ok_train / trials, statistics.median(ratios)))


if __name__ == "__main__":
    main()
