# hpcg (C++): the 27-point Poisson benchmark. Sourced by ../accuracy.sh.
DEVSET_SIZE=--nz
devset_build() {
	cp -r "$1/." "$2/src" &&
		mkdir -p "$2/build" && cd "$2/build" &&
		"$2/src/configure" Linux_MPI &&
		make -j2 CXX="${DEVSET_CXX:-mpipredict-mpicxx}" || return 1
	DEVSET_EXE=$2/build/bin/xhpcg DEVSET_RUNDIR=$2/build/bin
}
# nx = ny = 16 (a multiple of 8); nz grows. --rt=0: one CG set.
devset_design() {
	local nz role
	for nz in 16 24 32 40 48 56 80 104; do
		role=train
		[ "$nz" -gt 56 ] && role=held
		printf '%s\t\t--nx=16 --ny=16 --nz=%s --rt=0\n' "$role" "$nz"
	done
}
# bench-remaining's sizes: jobs of 2-3 s (about 20 progress posts at
# 0.1 s), the longest two still inside the range; 24 x 24 columns, as
# HPCG refuses a local grid whose smallest side is under an eighth of
# its largest (nz 160 on 16 x 16 exits 127).
devset_long_design() {
	local nz
	for nz in 24 48 72 96 120 144 168 192; do
		printf 'train\t\t--nx=24 --ny=24 --nz=%s --rt=0\n' "$nz"
	done
}
