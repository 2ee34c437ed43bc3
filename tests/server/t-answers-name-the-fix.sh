#!/usr/bin/env bash
# Issue 33, requirements 5 and 6: answers a person can use, and messages
# that name the fix, through mpipredict-predict and mpipredictd.
#
# Asserted:
#   - POST /v1/predict carries "limit" (D-HH:MM:SS) and "limit_s", the
#     upper bound rounded up to the next whole minute, the same as
#     mpipredict-predict --json's for the same job;
#   - mpipredict-predict --script reads a batch script as the daemon reads
#     it (the daemon's reader): the same answer as --args/--ntasks and as
#     POST /v1/predict {"script": ...}; its human output has the header
#     and a limit column;
#   - one refused row of --features leaves the others answered (exit 2,
#     the refused row on its own line with its reason);
#   - an unknown app lists the known ones, nearest first (CLI and 404);
#   - a missing parameter says how the job gives it;
#   - a mistyped --db names the file and how to make a store, and leaves
#     no file behind;
#   - a second daemon on a port in use says "address in use" and --listen;
#   - the users page on a store without finished jobs names jobcomp and
#     docs/deploy.md.
. "$MPP_SRC/tests/server/lib.sh"

gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 40 --features 60 --seed 4 >runs.csv || fail "gen-runs failed"
"$gen" --runs 40 --features 60 --seed 5 --app cg >cg.csv || fail "gen-runs failed"
"$gen" --runs 40 --features 60 --seed 6 --app test_HPCCG >hpccg.csv || fail "gen-runs failed"
for f in runs.csv cg.csv hpccg.csv; do
	mpipredict-train --db "$DB" "$f" >/dev/null 2>err.txt || fail "training $f failed: $(cat err.txt)"
done

# The CLI: --args and --script give the same answer and limit.
mpipredict-predict --db "$DB" --app stencil --args "-n 64 --iters=20" --ntasks 4 --nodes 1 --json >args.json ||
	fail "predict --args failed"
cat >job.sbatch <<'SH'
#!/bin/bash
#SBATCH -n 4
#SBATCH -N 1
#MPIPREDICT app=stencil
module load mpi
srun --mpi=pmix ./stencil -n 64 --iters=20 > out.txt
SH
mpipredict-predict --db "$DB" --script job.sbatch --json >script.json 2>script.err ||
	fail "predict --script failed: $(cat script.err)"
grep -q 'job.sbatch: app stencil, 4 ranks on 1 nodes, arguments "-n 64 --iters=20"' script.err ||
	fail "expected --script to say what it read, got $(cat script.err)"
for k in runtime_s upper_s limit_s; do
	close_to "--script $k" "$(jq .answers[0].$k args.json)" "$(jq .answers[0].$k script.json)"
done
jq -e '.job.ntasks == 4 and .job.args == ["-n", "64", "--iters=20"]' script.json >/dev/null ||
	fail "expected the script's job in --json, got $(jq -c .job script.json)"
mpipredict-predict --db "$DB" --script job.sbatch >human.txt 2>/dev/null || fail "predict --script (human) failed"
head -n 1 human.txt | grep -Eq '^run_id +predicted_s +lower_s +upper_s +limit$' ||
	fail "expected a header with units, got $(head -n 1 human.txt)"
limit=$(jq -r .answers[0].limit script.json)
sed -n 2p human.txt | grep -Eq "^- .* $limit\$" || fail "expected the limit $limit on the answer's line, got $(sed -n 2p human.txt)"

# The daemon: the same limit, from parameters and from the script.
start_daemon
st=$(req POST /v1/predict '{"app": "stencil", "args": "-n 64 --iters=20", "ntasks": 4, "nodes": 1}')
expect_status 200 "$st" "predict from parameters"
close_to "daemon upper_s" "$(jq .answers[0].upper_s args.json)" "$(jq .upper_s body)"
[ "$(jq -r .limit body)" = "$limit" ] || fail "expected the daemon's limit $limit, got $(cat body)"
[ "$(jq .limit_s body)" = "$(jq .answers[0].limit_s args.json)" ] || fail "expected the daemon's limit_s, got $(cat body)"
st=$(req POST /v1/predict "$(jq -n --rawfile s job.sbatch '{script: $s}')")
expect_status 200 "$st" "predict from the script"
close_to "daemon from the script" "$(jq .answers[0].runtime_s script.json)" "$(jq .runtime_s body)"

# An unknown app: the known ones, nearest first.
st=$(req POST /v1/predict '{"app": "hpccg", "args": "-n 64", "ntasks": 4}')
expect_status 404 "$st" "unknown app"
grep -q "no model for 'hpccg'; known: test_HPCCG, cg, stencil" body || fail "404: expected the known apps nearest first, got $(cat body)"
mpipredict-predict --db "$DB" --app hpccg --args "" --ntasks 1 2>err.txt
[ $? = 2 ] || fail "unknown app: expected exit 2"
grep -q "no model for app 'hpccg'; known: test_HPCCG, cg, stencil (mpipredict-model list)" err.txt ||
	fail "unknown app: expected the known apps nearest first, got $(cat err.txt)"

# The port in use.
mpipredictd --db "$DB" --listen "127.0.0.1:$PORT" --retrain-rows 0 --retrain-interval 0 2>second.err &
second=$!
wait "$second"
[ $? != 0 ] || fail "a second daemon on port $PORT: expected a failure"
grep -q "listen 127.0.0.1:$PORT: address in use (another mpipredictd? choose another with --listen)" second.err ||
	fail "port in use: expected the message naming --listen, got $(cat second.err)"

# The users page without finished jobs.
curl -s "$URL/ui/users" >users.html
grep -q "jobcomp" users.html && grep -q "docs/deploy.md, section 5" users.html ||
	fail "users page: expected the jobcomp fix, got $(grep -o '<p class="note">[^<]*' users.html | head -3)"
stop_daemon

# A missing parameter: how to give it.
mpipredict-predict --db "$DB" --app stencil --args "--iters=20" --ntasks 4 2>err.txt
[ $? = 2 ] || fail "missing -n: expected exit 2"
grep -Eq "parameter -n: missing \(needed for .*\); give it on the command line as the training runs did \(-n [0-9]+\)" err.txt ||
	fail "missing -n: expected how to give it, got $(cat err.txt)"

# One refused row does not hide the others.
head -n 3 runs.csv >rows.csv
kept=$(sqlite3 "$DB" "SELECT feature FROM model_terms t JOIN models m ON m.id = t.model_id JOIN apps a ON a.id = m.app_id WHERE m.active = 1 AND a.name = 'stencil' LIMIT 1")
col=$(head -n 1 runs.csv | tr ',' '\n' | grep -nxF "$kept" | cut -d: -f1)
awk -F, -v OFS=, -v c="$col" 'NR == 3 { $c = -5 } { print }' rows.csv >bad.csv
mpipredict-predict --db "$DB" --app stencil --features bad.csv >rows.txt 2>err.txt
[ $? = 2 ] || fail "a refused row: expected exit 2"
[ "$(wc -l <rows.txt)" = 3 ] || fail "a refused row: expected a header and two lines, got $(cat rows.txt)"
r1=$(sed -n 2p runs.csv | cut -d, -f1)
r2=$(sed -n 3p runs.csv | cut -d, -f1)
grep -Eq "^$r1 +[0-9]" rows.txt || fail "a refused row: expected $r1 answered, got $(cat rows.txt)"
grep -Eq "^$r2 +refused: .*-5" rows.txt || fail "a refused row: expected $r2 refused naming $kept, got $(cat rows.txt)"

# A mistyped store.
mpipredict-predict --db modles.db --app stencil --args "" --ntasks 1 2>err.txt
[ $? = 2 ] || fail "mistyped --db: expected exit 2"
grep -q "modles.db: no store here (make one with mpipredict-train --db modles.db" err.txt ||
	fail "mistyped --db: expected the file and the fix, got $(cat err.txt)"
[ ! -e modles.db ] || fail "mistyped --db: expected no file created"
exit 0
