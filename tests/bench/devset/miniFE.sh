# miniFE (ref/, C++ with C parts): implicit finite elements, CG. Sourced by
# ../accuracy.sh.
DEVSET_SIZE=nz
devset_build() {
	cp -r "$1/ref" "$2/ref" && cd "$2/ref/src" &&
		make -j2 CXX="${DEVSET_CXX:-mpipredict-mpicxx}" \
			CC="${DEVSET_CC:-mpipredict-mpicc}" || return 1
	DEVSET_EXE=$2/ref/src/miniFE.x DEVSET_RUNDIR=$2/ref/src
}
devset_design() {
	local nz role
	for nz in 20 32 44 56 68 80 120 160; do
		role=train
		[ "$nz" -gt 80 ] && role=held
		printf '%s\t\tnx=20 ny=20 nz=%s\n' "$role" "$nz"
	done
}
# bench-remaining's sizes: jobs of 2-3 s, inside the range.
devset_long_design() {
	local nz
	for nz in 40 80 120 160 200 240 300 360; do
		printf 'train\t\tnx=20 ny=20 nz=%s\n' "$nz"
	done
}
