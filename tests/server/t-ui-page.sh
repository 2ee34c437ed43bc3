#!/usr/bin/env bash
# The staff page (GET /, /ui/...) in a real browser: headless Chromium
# loads every view from a daemon started with a model trained by
# mpipredict-train and a set of actual run times, and ui-check.py checks
# the DOM against SQL over the store: one point per prediction with an
# outcome, the numbers of every table, no console error (its self-test
# shows a console error is caught). Actual run times first from Slurm's
# accounting (a `jobs` table with the columns of store version 4), then,
# without it, from training runs with the same job id. User names: shown
# on loopback, hidden with --ui-users no unless the token is sent.
# Screenshots: build/tests/ui/ (and $MPP_UI_SHOTS when set, for the README).
. "$MPP_SRC/tests/server/lib.sh"
command -v chromium >/dev/null || { echo "skip: no chromium (Debian package chromium)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
shots=$MPP_BUILD/tests/ui
mkdir -p "$shots"

# An empty store: every view answers, and says there is nothing yet.
start_daemon --ui-refresh 100
curl -s "$URL/" | grep -q 'No model yet' || fail "empty store: expected 'No model yet' on /"
curl -s "$URL/ui/accuracy" | grep -q 'no prediction with a known outcome yet' ||
	fail "empty store: expected an empty chart on /ui/accuracy"
stop_daemon

# Two apps: stencil (40 runs, trained twice, so it has a history) and heat
# (30 runs). Heat's noise is 20 %: at 30 % one run came out at 0.02 s
# (1 - 3.2 sigma), its model's interval spanned x[0.035, 59.6], and
# predictions refuse an interval over 100x (regress/model.h).
"$MPP_BUILD/tests/regress/gen-runs" --runs 40 --features 30 --seed 3 --noise 0.15 >runs.csv ||
	fail "expected gen-runs to write runs"
"$MPP_BUILD/tests/regress/gen-runs" --runs 30 --features 20 --seed 8 --noise 0.2 --app heat --first 100 >heat.csv ||
	fail "expected gen-runs to write heat's runs"
mpipredict-train --db "$DB" runs.csv >train.out || fail "expected mpipredict-train to work: $(cat train.out)"
mpipredict-train --db "$DB" runs.csv >train.out || fail "expected a second training to work: $(cat train.out)"
mpipredict-train --db "$DB" heat.csv >train.out || fail "expected heat's training to work: $(cat train.out)"

# Slurm's accounting for 36 of the 40 stencil runs (job 1000+i is run i)
# and for every heat run (job 2000+i), in the
# jobs table of store version 4 (created here while this branch's store is
# older): users who ask for 10x, 3x and 1.5x what their jobs use, in whole
# minutes.
sqlite3 "$DB" "CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY,
	job_id TEXT NOT NULL UNIQUE, user TEXT NOT NULL, uid INTEGER, account TEXT,
	partition TEXT, app TEXT, nodes INTEGER, ntasks INTEGER, time_limit_s REAL,
	submit_at REAL, start_at REAL, end_at REAL, runtime_s REAL NOT NULL,
	state TEXT NOT NULL, updated_at REAL NOT NULL)" ||
	fail "expected to create the jobs table"
jobs() { # CSV BASE LAST-ROW APP
	awk -F, -v base="$2" -v last="$3" -v app="$4" 'NR > 1 && NR <= last { i = NR - 2; u = i % 3; k = u == 0 ? 10 : u == 1 ? 3 : 1.5
	m = $8 * k / 60; lim = 60 * (int(m) + (m > int(m)))
	printf "INSERT INTO jobs (job_id, user, account, partition, app, nodes, ntasks, time_limit_s, submit_at, start_at, end_at, runtime_s, state, updated_at) VALUES (\"%d\", \"%s\", \"acct\", \"debug\", \"%s\", %d, %d, %d, 0, 0, %s, %s, \"COMPLETED\", 0);\n",
		base + i, u == 0 ? "alice" : u == 1 ? "bob" : "carol", app, 1 + i % 2, $6, lim, $8, $8 }' "$1"
}
{ jobs runs.csv 1000 37 stencil; jobs heat.csv 2000 31 heat; } |
	sqlite3 "$DB" || fail "expected to fill the jobs table"

start_daemon --ui-refresh 100 --token-file <(echo s3cret)
# One prediction per run (its features), job 1000+i or 2000+i of its
# user; the last 4 stencil jobs have no accounting row yet (no outcome),
# and 3 predictions carry no job id at all.
predictions() { # CSV BASE APP
	awk -F, -v base="$2" -v app="$3" 'NR == 1 { for (i = 10; i <= NF; i++) name[i] = $i; next }
	{ i = NR - 2; u = i % 3
	  printf "{\"app\":\"%s\",\"job_id\":\"%d\",\"user\":\"%s\",\"features\":{", app, base + i,
		u == 0 ? "alice" : u == 1 ? "bob" : "carol"
	  sep = ""
	  for (k = 10; k <= NF; k++) if ($k != "") { printf "%s\"%s\":%s", sep, name[k], $k; sep = "," }
	  print "}}" }' "$1"
}
{ predictions runs.csv 1000 stencil; predictions heat.csv 2000 heat; } >requests.jsonl
for _ in 1 2 3; do echo '{"app":"stencil","ntasks":4,"args":"-n 128 --iters=20 out.dat"}' >>requests.jsonl; done
# heat's model is poor on purpose: the daemon refuses (400) a prediction
# that comes out at or below 0 s; those are not audited.
n=0
while IFS= read -r line; do
	st=$(req POST /v1/predict "$line")
	if [ "$st" = 400 ] && grep -q 'not a positive run time' body; then
		continue
	fi
	expect_status 200 "$st" "prediction"
	n=$((n + 1))
done <requests.jsonl
[ "$n" -ge 60 ] || fail "expected at least 60 of 73 predictions answered, got $n"
for _ in $(seq 200); do
	[ "$(rows predictions)" = "$n" ] && curl -s "$URL/ui/predictions" | grep -q "of $n predictions" && break
	sleep 0.1
done
curl -s "$URL/ui/predictions" | grep -q "of $n predictions" ||
	fail "expected the page to show $n predictions within 20 s"

python3 "$MPP_SRC/tests/server/ui-check.py" --selftest --db "$DB" --url "$URL" --out "$PWD" \
	--shots "${MPP_UI_SHOTS:-$shots}" >check.out 2>&1 || fail "jobs table: $(cat check.out)"
cp ui-*.png "$shots/"

# One app's view: its points only.
curl -s "$URL/ui/accuracy?app=stencil" >app.html
[ "$(grep -o '<circle class="pt' app.html | wc -l)" = 36 ] ||
	fail "?app=stencil: expected 36 points, got $(grep -o '<circle class="pt' app.html | wc -l)"

# HEAD and the wrong method, an unknown app, and a hostile app name
# escaped, not interpreted.
st=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/")
[ "$st" = 405 ] || fail "POST /: expected 405, got $st"
st=$(curl -s -o body -w '%{http_code}' "$URL/ui/accuracy?app=%3Cscript%3Ex")
[ "$st" = 404 ] || fail "unknown app: expected 404, got $st"
grep -q '&lt;script&gt;x' body && ! grep -q '<script>' body ||
	fail "unknown app: expected its name escaped, got $(grep -o 'No model[^<]*' body)"
stop_daemon

# Beyond loopback (here: --ui-users no), user names need the token.
start_daemon --ui-refresh 100 --ui-users no --token-file <(echo s3cret)
curl -s "$URL/ui/users" >users.html
curl -s "$URL/ui/predictions" >preds.html
grep -q 'id="users"' users.html && fail "--ui-users no: expected no users table without the token"
grep -q 'alice' preds.html && fail "--ui-users no: expected no user name among recent predictions"
curl -s -H 'Authorization: Bearer s3cret' "$URL/ui/users" | grep -q '<td>alice</td>' ||
	fail "--ui-users no: expected the users table with the token"
stop_daemon

# No Slurm accounting (an empty jobs table, as a store of version 4 starts
# with): the outcomes come from training runs with the same
# job id. Runs 31..40 are ingested through POST /v1/runs with job ids
# 1030..1039 (the jobs predicted above).
awk -F, -v OFS=, 'NR == 1 || NR > 31 { if (NR > 1) $5 = 1000 + NR - 2; print }' runs.csv >ingest.csv
sqlite3 "$DB" "DELETE FROM jobs" || fail "expected to empty jobs"
start_daemon --ui-refresh 100 --token-file <(echo s3cret)
st=$(curl -s -o body -w '%{http_code}' -H 'Authorization: Bearer s3cret' -H 'Content-Type: text/csv' \
	--data-binary @ingest.csv "$URL/v1/runs")
[ "$st" = 200 ] || fail "POST /v1/runs: expected 200, got $st: $(cat body)"
stop_daemon
start_daemon --ui-refresh 100
python3 "$MPP_SRC/tests/server/ui-check.py" --db "$DB" --url "$URL" --out "$PWD" >check.out 2>&1 ||
	fail "runs as outcomes: $(cat check.out)"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM predictions p JOIN runs r ON r.job_id = p.job_id")" -ge 9 ] ||
	fail "runs as outcomes: expected at least 9 predictions joined to runs"
stop_daemon
rm -f ui-*.png
exit 0
