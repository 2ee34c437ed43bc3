#!/usr/bin/env bash
# make demo: the main job end to end on an example MPI program.
# It runs the steps whose parts exist and says plainly which are not built.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
step() { printf '\n==> %s\n' "$*"; }
missing=0
for prog in mpipredict-instrument mpipredict-cc mpipredict-train mpipredict-predict mpipredictd; do
	if [ ! -x "$BUILD/bin/$prog" ]; then
		echo "demo: $prog is not built yet"
		missing=1
	fi
done
if [ "$missing" = 1 ]; then
	step "the pipeline is not complete yet; nothing to demonstrate end to end"
	exit 0
fi
