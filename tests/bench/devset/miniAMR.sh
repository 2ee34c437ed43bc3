# miniAMR (ref/, C): stencils on blocks of an adaptive mesh refined and
# coarsened around a moving object. Sourced by ../accuracy.sh.
DEVSET_SIZE=--nx
# Only CC changed: its Makefile links with its own LD = mpicc, which links
# the instrumented objects without -lmpipredict (they load the runtime
# themselves at run time, docs/guide.md "make CC=mpipredict-mpicc
# LD=mpicc"; the runs write their rows), so LD is left alone.
devset_build() {
	cp -r "$1/ref" "$2/ref" && cd "$2/ref" &&
		make -j2 CC="${DEVSET_CC:-mpipredict-mpicc}" || return 1
	DEVSET_EXE=$2/ref/miniAMR.x DEVSET_RUNDIR=$2/ref
}
# One rank; one sphere surface (radius 0.2) moving across the unit cube,
# 3 levels of refinement checked every 5 of 20 timesteps: about 90-180
# blocks, refined and coarsened as it moves, the same for every block
# size. The size is the block's cells a side, --nx = --ny = --nz (even,
# as miniAMR requires); 6 variables and 5 stages a timestep instead of
# the defaults' 40 and 20 (a run of 8^3 blocks took 20 s with them).
devset_amr() {
	printf -- '--npx 1 --npy 1 --npz 1 --nx %s --ny %s --nz %s' "$1" "$1" "$1"
	printf -- ' --num_refine 3 --num_tsteps 20 --num_vars 6 --stages_per_ts 5'
	printf -- ' --num_objects 1 --object 2 1 0.3 0.3 0.3 0.02 0.02 0.02 0.2 0.2 0.2 0 0 0'
}
devset_design() {
	local n role
	for n in 6 8 10 12 14 16 20 22; do
		role=train
		[ "$n" -gt 16 ] && role=held
		printf '%s\t\t%s\n' "$role" "$(devset_amr "$n")"
	done
}
# bench-remaining's sizes: jobs (14 and 16) of 2-3 s, inside the range.
devset_long_design() {
	local n
	for n in 4 6 8 10 12 14 16 18; do
		printf 'train\t\t%s\n' "$(devset_amr "$n")"
	done
}
