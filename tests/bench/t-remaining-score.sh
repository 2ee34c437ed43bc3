#!/usr/bin/env bash
# make bench-remaining's scoring (tests/bench/remaining.py --reanalyse) on
# made-up answers whose errors are known: err = |remaining - actual left|
# / actual total, the model's |predicted - actual| / actual, the answer
# nearest 50 % / 90 % progress chosen, the interval's hold counted, the
# goal judged (at 0.5 no worse than the model, at 0.9 under half of it),
# and a job whose progress never moves has no answer "at 50 %" (not met),
# not the answer of progress 0 scored as one. No MPI is run.
fail=0
bad() {
	echo "$*"
	fail=1
}
printf 'good\tjob\t1\t\t-n 1\tx\t.\nstuck\tjob\t1\t\t-n 1\tx\t.\n' >settings.tsv
python3 - <<'PY'
import json
def ans(e, r, p, lo, up, basis="counters"):
    return dict(elapsed_s=e, remaining_s=r, progress=p, lower_s=lo,
                upper_s=up, progress_basis=basis, reported_s_ago=0)
raw = []
for k in range(3):
    # T = 10 s, predicted 12 s (model 20 %); the time left is the
    # progress's share of the prediction.
    raw.append(dict(app="good", job="g%d" % k, np=1, args="-n 1", T=10.0,
                    wall=10.5, pred=12.0, answers=[
                        ans(2.0, 9.6, 0.2, 8, 11),
                        ans(5.0, 6.0, 0.5, 5, 7),     # err 10 %, holds 5
                        ans(9.0, 1.2, 0.9, 1.1, 1.4), # err 2 %, misses 1
                        ans(10.4, 0.0, 1.0, 0, 0)]))  # after the end
    raw.append(dict(app="stuck", job="s%d" % k, np=1, args="-n 1", T=10.0,
                    wall=10.5, pred=12.0, answers=[
                        ans(e, 12.0, 0.0, 10, 14) for e in (1, 5, 9)]))
json.dump(dict(raw=raw, cv={"good": 5.0, "stuck": 5.0},
               load=["0.1 0.1 0.1", "0.2 0.2 0.2"], progress_s=0.1,
               poll_s=0.1), open("raw.json", "w"))
PY
python3 "$MPP_SRC/tests/bench/remaining.py" --settings settings.tsv --out . \
	--bin /nonexistent --reanalyse >out.txt 2>&1 || bad "expected exit 0, got: $(cat out.txt)"
# row VIEW APP: the table line (VIEW: the first word after "view:").
row() { awk -v v="$1" -v a="$2" '/^view: /{w=$2} w==v && $1==a' out.txt; }
good=$(row answered good | tr -s ' ')
[ "$good" = "good 3 3 10.00 20.0 | 0.50 0.50 10.0 20.0 3/3 | 0.90 0.90 2.0 20.0 0/3 | met" ] ||
	bad "expected good's medians: model 20.0, err 10.0 at 0.5 (held 3/3), 2.0 at 0.9 (held 0/3), met; got: $good"
stuck=$(row answered stuck | tr -s ' ')
[ "$stuck" = "stuck 3 3 10.00 20.0 | - - - - 0/0 | - - - - 0/0 | not met" ] ||
	bad "expected no answer near 0.5 or 0.9 for a progress stuck at 0 (not met); got: $stuck"
bytime=$(row by stuck | tr -s ' ')
# At 50 % of the run (e = 5): remaining 12 against 5 left, err 70 %.
case $bytime in
"stuck 3 3 10.00 20.0 | 0.00 0.50 70.0 140.0 0/3 |"*) ;;
*) bad "expected the by-time view to score the stuck job at e = 5 s (err 70.0); got: $bytime" ;;
esac
[ -s jobs.csv ] && [ "$(wc -l <answers.csv)" = 19 ] ||
	bad "expected jobs.csv and 18 answers (those after the end left out) in answers.csv, got $(wc -l <answers.csv) lines"
[ "$fail" = 0 ] && echo "bench-remaining scores known answers as expected"
exit "$fail"
