#!/usr/bin/env bash
# make demo's script runs every step to the end and prints the prediction
# (REST from parameters and from a batch script, CLI from features) beside
# the measured time, and stops its daemon; with a part missing it says which
# steps did not run and exits 1 instead of pretending.
set -u
. "$MPP_SRC/tests/e2e/lib.sh"
e2e_need mpipredict-cc mpipredict-instrument mpipredict-train \
	mpipredict-predict mpipredictd
fail=0

BUILD=$MPP_BUILD MPP_DEMO_DIR=$PWD/demo MPP_DEMO_QUICK=1 "$MPP_SRC/tests/demo.sh" >demo.out 2>&1
rc=$?
[ $rc = 0 ] || bad "demo: expected exit 0, got $rc"
# From parameters the answer comes from the counters' power laws or from the
# run-time law, which must cross-validate better by one standard error (issue 15).
grep -qE '"basis": "(parameters|runtime-law)"' demo.out ||
	bad "demo: expected a REST answer with basis parameters or runtime-law"
for want in "==> train" "==> start mpipredictd" \
	"REST, from parameters" "REST, from the batch script" \
	"CLI, from the run's features" "measured (MPI_Init..MPI_Finalize)" \
	"==> stop mpipredictd" "demo complete"; do
	grep -qF -- "$want" demo.out || bad "demo: expected '$want' in its output"
done
grep -qE "NOT RUN|FAILED" demo.out && bad "demo: expected every step to run, got: $(grep -E "NOT RUN|FAILED" demo.out)"
rows=$(($(wc -l <demo/runs/jacobi3d.csv) - 1))
[ "$rows" = 13 ] || bad "demo: expected 13 run rows (12 + the unseen setting), got $rows"
pid=$(grep -o 'kill [0-9]*' demo.out | cut -d' ' -f2)
[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null || bad "demo: expected mpipredictd ($pid) stopped"
[ $fail = 0 ] || tail -n 30 demo.out

# The same with no trainer: honest about what it could not do.
mkdir -p part/bin
ln -s "$MPP_BUILD/lib" part/lib
for p in mpipredict-cc mpipredict-instrument mpipredict-predict mpipredictd; do
	ln -s "$MPP_BUILD/bin/$p" part/bin/
done
BUILD=$PWD/part MPP_DEMO_DIR=$PWD/demo2 MPP_DEMO_QUICK=1 "$MPP_SRC/tests/demo.sh" >demo2.out 2>&1
rc=$?
[ $rc = 1 ] || bad "demo without mpipredict-train: expected exit 1, got $rc"
for want in "NOT RUN: mpipredict-train not built yet" "demo incomplete" \
	"- train (needs mpipredict-train)" "- ask over REST (no daemon)"; do
	grep -qF -- "$want" demo2.out || bad "demo without mpipredict-train: expected '$want'"
done
grep -q "demo complete" demo2.out && bad "demo without mpipredict-train: claims to be complete"
exit $fail
