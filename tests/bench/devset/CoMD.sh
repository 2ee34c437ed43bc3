# CoMD (src-mpi/, C): classical molecular dynamics, Lennard-Jones by
# default (no potential file read). Sourced by ../accuracy.sh.
DEVSET_SIZE=-x
devset_build() {
	# The whole checkout (src-mpi's Makefile puts the program in ../bin);
	# "$1/.", as DIR/CoMD may be a symlink (`cp -r` copies the link).
	# CoMD ships only Makefile.vanilla and its README says to copy it to
	# Makefile: `make -f Makefile.vanilla` fails ("No rule to make target
	# 'Makefile', needed by 'CoMD_info.h'"), so the copy is the one change
	# besides CC (its DO_MPI is ON already). Its makedepend step fails
	# when makedepend is not installed ("Error 127"); make goes on. Not
	# -j2: yamlOutput.c's CoMD_info.h is a prerequisite of the program
	# only, not of its object (about 5 s serial anyway).
	cp -r "$1/." "$2/CoMD" && cd "$2/CoMD/src-mpi" &&
		cp Makefile.vanilla Makefile &&
		make CC="${DEVSET_CC:-mpipredict-mpicc}" || return 1
	# Runs start at the copy's top, where pots/ is (the potentials an
	# EAM run, -e, reads from "pots"); each run writes a
	# CoMD-mpi.<date-time>.yaml there.
	DEVSET_EXE=$2/CoMD/bin/CoMD-mpi DEVSET_RUNDIR=$2/CoMD
}
# An N x N x N lattice of unit cells (4 N^3 atoms), -x = -y = -z: the
# same value under three names (issue 40). 40 steps, energies printed
# every 10 (CoMD rounds the steps up to a multiple of the print rate).
devset_design() {
	local n role
	for n in 6 8 10 12 14 16 18 20; do
		role=train
		[ "$n" -gt 16 ] && role=held
		printf '%s\t\t-x %s -y %s -z %s -N 40 -n 10\n' "$role" "$n" "$n" "$n"
	done
}
# bench-remaining's sizes: jobs of 2-3 s, inside the range, of 100
# steps (40 make the smaller runs mostly start-up).
devset_long_design() {
	local n
	for n in 6 7 8 9 10 11 12 13; do
		printf 'train\t\t-x %s -y %s -z %s -N 100 -n 10\n' "$n" "$n" "$n"
	done
}
