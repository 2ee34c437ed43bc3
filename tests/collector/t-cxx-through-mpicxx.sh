#!/usr/bin/env bash
# End to end in C++: progs/halo.cpp built with the one-word wrapper
# mpipredict-mpicxx (OpenMPI; MPICH through MPIPREDICT_CC and a C++ driver)
# prints what the plain build prints, and the row has exact counts at 1, 2
# and 4 ranks: call sites inside a class template's constructor (one site
# per source location, shared by its double and float instantiations),
# persistent requests whose bytes go to their *_init sites at every
# MPI_Startall, a loop helper called with a lambda, range-for loops.
. "$MPP_SRC/tests/collector/lib.sh"
command -v mpipredict-cc >/dev/null || { echo "mpipredict-cc is not built"; exit 77; }
command -v c++ >/dev/null || { echo "no C++ compiler"; exit 77; }

cp "$progs/halo.cpp" .
ln -s "$(command -v mpipredict-cc)" mpipredict-mpicxx
line() { grep -n "/\* $1 \*/" halo.cpp | cut -d: -f1; }
col() { # the one header column matching the regular expression $1
	local c
	c=$(csvget -H "$file" | grep -x "$1") && [ "$(printf '%s\n' "$c" | wc -l)" = 1 ] ||
		{ fail "$mpi: expected one column matching $1, got '$c'"; return 1; }
	printf '%s\n' "${c%.mean}"
}
it=5
for m in $MPIS; do
	use_mpi "$m"
	rm -rf halo halo.orig runs
	if [ "$m" = mpich ]; then
		CC=c++ $MPI_CC ${MPP_TEST_CFLAGS:-} -O1 -o halo.orig halo.cpp &&
			CC=c++ MPIPREDICT_CC=$MPI_CC MPIPREDICT_LIBDIR=$LIBDIR \
				./mpipredict-mpicxx ${MPP_TEST_CFLAGS:-} -O1 -o halo halo.cpp 2>notes
	else
		mpicxx ${MPP_TEST_CFLAGS:-} -O1 -o halo.orig halo.cpp &&
			./mpipredict-mpicxx ${MPP_TEST_CFLAGS:-} -O1 -o halo halo.cpp 2>notes
	fi || { fail "$m: building halo.cpp failed: $(cat notes)"; continue; }
	grep 'not instrumented' notes && fail "$m: expected every site instrumented, got the above"
	for n in 1 2 4; do
		rm -rf runs
		want=$(run $n ./halo.orig $it | sort) || { fail "$m n=$n: the plain build exited with $?"; continue; }
		got=$(MPIPREDICT_RUNS=runs/ run $n ./halo $it | sort) ||
			{ fail "$m n=$n: the instrumented build exited with $?"; continue; }
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "$m n=$n: expected output '$want', got '$got'"
		file=runs/halo.csv
		# rd: 4 doubles each step (5); rf: 2 floats on even steps (3).
		c=$(col "call:halo\.cpp:$(line SEND_INIT):[0-9]*:MPI_Send_init\.mean") && want "$c" 2
		c=$(col "bytes:halo\.cpp:$(line SEND_INIT):[0-9]*:MPI_Send_init\.mean") && want "$c" '5 * 32 + 3 * 8'
		c=$(col "bytes:halo\.cpp:$(line RECV_INIT):[0-9]*:MPI_Recv_init\.mean") && want "$c" '5 * 32 + 3 * 8'
		c=$(col "call:halo\.cpp:$(line STARTALL):[0-9]*:MPI_Startall\.mean") && want "$c" 8
		c=$(col "loop:halo\.cpp:$(line SUM):[0-9]*\.mean") && want "$c" '5 * 4 + 3 * 2'
		c=$(col "loop:halo\.cpp:$(line STEPS):[0-9]*\.mean") && want "$c" 5
		c=$(col "then:halo\.cpp:$(line EVEN):[0-9]*\.mean") && want "$c" 3
		c=$(col "loop:halo\.cpp:$(line PARTS):[0-9]*\.mean") && want "$c" n
		c=$(col "bytes:halo\.cpp:$(line ALLGATHER):[0-9]*:MPI_Allgather\.mean") && want "$c" '8 + 8 * n'
		want mpi:MPI_Waitall:calls 8
		want mpi:MPI_Waitall:untagged:calls 0
		want mpi:MPI_Startall:untagged:calls 0
		want comm:intra:bytes '2 * (5 * 32 + 3 * 8)'
		check_wants "$file" 1
	done
done
finish
