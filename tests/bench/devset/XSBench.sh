# XSBench (openmp-threading/ with MPI=yes, C): Monte Carlo cross-section
# lookups. Sourced by ../accuracy.sh.
DEVSET_SIZE=-l
# XSBench exits 1 when its verification hash differs from the one it knows,
# which it knows for the default problem only: every run here "fails", and
# mpipredict-train leaves failed runs out unless told.
DEVSET_TRAIN=--include-failed
devset_build() {
	cp -r "$1/openmp-threading" "$2/xs" && cd "$2/xs" &&
		make MPI=yes CC="${DEVSET_CC:-mpipredict-mpicc}" || return 1
	DEVSET_EXE=$2/xs/XSBench DEVSET_RUNDIR=$2/xs
}
# Event-based (-l is the total number of lookups); small problem, 1000
# grid points per nuclide.
devset_design() {
	local l role
	for l in 100000 160000 220000 280000 340000 400000 600000 800000; do
		role=train
		[ "$l" -gt 400000 ] && role=held
		printf '%s\t\t-m event -s small -g 1000 -l %s\n' "$role" "$l"
	done
}
# bench-remaining's sizes: jobs of 2-3 s, inside the range.
devset_long_design() {
	local l
	for l in 200000 400000 800000 1200000 1600000 2000000 2400000 2800000; do
		printf 'train\t\t-m event -s small -g 1000 -l %s\n' "$l"
	done
}
