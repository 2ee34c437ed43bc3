# PENNANT (C++): unstructured-mesh Lagrangian hydrodynamics. Sourced by
# ../accuracy.sh. Its Makefile sets Intel's flags; the GCC ones it lists in
# its comments are passed instead (see README.md).
DEVSET_SIZE=nzx
devset_build() {
	local n
	cp -r "$1/." "$2/pennant" && cd "$2/pennant" &&
		make -j2 CXX="${DEVSET_CXX:-mpipredict-mpicxx}" CXXFLAGS_OPT=-O3 \
			CXXFLAGS_OPENMP=-fopenmp || return 1
	# The size is in the deck: test/sedov with its mesh changed, and its
	# first time step with it (1e-4 at 45 zones: at 360 zones that step
	# inverts zones, "Error: 66 negative side volumes", exit 1).
	mkdir -p "$2/decks" || return 1
	for n in $(devset_design | sed 's/.*nzx=\([0-9]*\).*/\1/'); do
		sed -e "s/^meshparams .*/meshparams $n $n 1.125 1.125/" \
			-e "s/^dtinit .*/dtinit $(awk "BEGIN { print 1e-4 * 45 / $n }")/" \
			test/sedov/sedov.pnt >"$2/decks/sedov-$n.pnt" || return 1
	done
	# bench-remaining's: 200 cycles instead of the deck's 10.
	for n in $(devset_long_design | sed 's/.*nzx=\([0-9]*\).*/\1/'); do
		sed -e "s/^meshparams .*/meshparams $n $n 1.125 1.125/" \
			-e "s/^dtinit .*/dtinit $(awk "BEGIN { print 1e-4 * 45 / $n }")/" \
			-e "s/^cstop .*/cstop 200/" \
			test/sedov/sedov.pnt >"$2/decks/sedov-c200-$n.pnt" || return 1
	done
	DEVSET_EXE=$2/pennant/build/pennant DEVSET_RUNDIR=$2/decks
}
# An N x N mesh, declared as nzx=N (a deck shows the parameters nothing).
devset_design() {
	local n role
	for n in 80 98 116 134 152 170 220 280; do
		role=train
		[ "$n" -gt 170 ] && role=held
		printf '%s\tnzx=%s\tsedov-%s.pnt\n' "$role" "$n" "$n"
	done
}
# bench-remaining's sizes: jobs of 2-3 s, inside the range, of 200
# cycles (the deck's 10 make a run a fifth set-up and a fifth output).
devset_long_design() {
	local n
	for n in 60 80 100 120 140 160 180 200; do
		printf 'train\tnzx=%s\tsedov-c200-%s.pnt\n' "$n" "$n"
	done
}
