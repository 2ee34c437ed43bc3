#!/usr/bin/env python3
"""Extra-P against mpipredict past the trained range (issue 40's goal).

    python3 tests/bench/extrap_vs.py --extrap PATH/bin/extrap OUT...

OUT is a `make bench-accuracy SRC=DIR` output folder (MPP_BENCH_OUT, or
$BUILD/bench/devset). For each development-set code there, Extra-P's
command-line modeller is fitted on the extrapolation split's training runs
(work/CODE/extrapolation/train.csv: every repeat, one parameter, the size
the recipe grows) and its model evaluated at the held-out settings
(test.csv); the MAPE over the held runs is printed beside mpipredict's own
on the same runs (results.csv: default/params and default/features).
Extra-P runs from its source on Debian's numpy and scipy (setup:
../shared/notes/extrap.md); it gives no interval, so only errors are
compared.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from accuracy import params_of  # noqa: E402 (the parameters as training names them)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def size_name(code):
    """The size the code's recipe grows (tests/bench/devset/CODE.sh,
    DEVSET_SIZE), or None for a folder with no recipe."""
    recipe = os.path.join(HERE, "devset", code + ".sh")
    if not os.path.exists(recipe):
        return None
    return subprocess.run(["bash", "-c", '. "$1" && printf %s "$DEVSET_SIZE"',
                           "-", recipe], capture_output=True,
                          text=True).stdout or None


def size(name, row):
    v = params_of(row["args"], row["nprocs"]).get(name)
    if v is None:
        sys.exit("extrap_vs: no %s in args '%s'" % (name, row["args"]))
    return v


def model(extrap, code, name, train):
    """Extra-P's model of the run time in the size, as a Python expression."""
    points = {}
    for r in train:
        points.setdefault(size(name, r), []).append(
            float(r["runtime_s"]))
    doc = {"parameters": ["x"], "measurements": {"main": {"time": [
        {"point": [x], "values": v} for x, v in sorted(points.items())]}}}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(doc, f)
        f.flush()
        p = subprocess.run([extrap, "--json", f.name, "--measure", "median",
                            "--disable-progress", "--print",
                            "{model:python}"],
                           capture_output=True, text=True, timeout=600)
    lines = p.stdout.strip().splitlines()
    if p.returncode or not lines:
        sys.exit("extrap_vs: %s: extrap failed: %s" % (code, p.stderr.strip()))
    return lines[-1]


def ours(out, code):
    got = {}
    for r in rows(os.path.join(out, "results.csv")):
        if (r["app"] == code and r["split"] == "extrapolation"
                and r["scope"] == "all" and r["mape_pct"]
                and r["method"] in ("default/params", "default/features")):
            got[r["method"]] = float(r["mape_pct"])
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extrap", required=True, help="Extra-P's extrap")
    ap.add_argument("out", nargs="+", help="bench-accuracy output folders")
    opt = ap.parse_args()
    print("%-12s %-8s %9s %9s %9s  %s" % ("set", "code", "Extra-P",
                                          "params", "features",
                                          "Extra-P's model"))
    wins = total = 0
    for out in opt.out:
        for code in sorted(os.listdir(os.path.join(out, "work"))):
            w = os.path.join(out, "work", code, "extrapolation")
            name = size_name(code)
            if not name or not os.path.exists(os.path.join(w, "test.csv")):
                continue
            expr = model(opt.extrap, code, name,
                         rows(os.path.join(w, "train.csv")))
            test = rows(os.path.join(w, "test.csv"))
            err = [abs(eval(expr, {"__builtins__": {}, "log2": math.log2,
                                   "x": size(name, r)})
                       - float(r["runtime_s"])) / float(r["runtime_s"])
                   for r in test]
            e = 100 * sum(err) / len(err)
            o = ours(out, code)
            p = o.get("default/params", math.nan)
            print("%-12s %-8s %8.1f%% %8.1f%% %8.1f%%  %s" % (
                os.path.basename(os.path.normpath(out)), code, e, p,
                o.get("default/features", math.nan), expr))
            total += 1
            wins += p < e
    print("mpipredict from parameters below Extra-P past the range in %d of "
          "%d code-sets" % (wins, total))


if __name__ == "__main__":
    main()
