#!/usr/bin/env bash
# Call-site attribution survives MPI calls made inside the arguments of a
# tagged MPI call (ABI 2: a per-thread tag stack, a call takes only a tag
# for its own function). Expected per rank, at 2 ranks, OpenMPI and MPICH:
#   a tagged call whose argument makes a tagged call of another function
#     (A, D), of the same function (C), or calls a helper making an
#     untagged call (B, and D's untagged Bcast two levels down): every site
#     gets exactly its one call and its bytes, the untagged calls go to the
#     functions' untagged totals.
# First with a hand-built unit (progs/nest.c) in both evaluation orders C
# allows, tag before the arguments and after; then the same shapes
# rewritten by mpipredict-cc from progs/nested.c with gcc and with clang,
# the untagged calls coming from an uninstrumented file.
. "$MPP_SRC/tests/collector/lib.sh"
n=2

want_nested() { # $1 $2 ...: the site columns A A_IN B C C_IN D D_MID
	want "call:$1" 1
	want "bytes:$1" 12
	want "call:$2" 1
	want "bytes:$2" 8
	want "call:$3" 1
	want "bytes:$3" 20
	want "call:$4" 1
	want "bytes:$4" 32
	want "call:$5" 1
	want "bytes:$5" 8
	want "call:$6" 1
	want "bytes:$6" 24
	want "call:$7" 1
	want "bytes:$7" 8
	want mpi:MPI_Allreduce:calls 5
	want mpi:MPI_Allreduce:bytes 72
	want mpi:MPI_Allreduce:untagged:calls 1
	want mpi:MPI_Allreduce:untagged:bytes 16
	want mpi:MPI_Bcast:calls 4
	want mpi:MPI_Bcast:bytes 60
	want mpi:MPI_Bcast:untagged:calls 1
	want mpi:MPI_Bcast:untagged:bytes 4
}

line() { grep -n "/\* $1 \*/" nested.c | cut -d: -f1; }
col() { # the one header column matching the regular expression $1
	local c
	c=$(csvget -H "$file" | grep -x "$1") && [ "$(printf '%s\n' "$c" | wc -l)" = 1 ] ||
		{ fail "$mpi $cc: expected one column matching $1, got '$c'"; echo none; return 1; }
	c=${c%.mean}
	printf '%s\n' "${c#call:}"
}
site() { # $1 marker, $2 function: the site name of the call after the marker
	col "call:nested\.c:$(($(line "$1") + 1)):[0-9]*:$2\.mean"
}

cp "$progs/nested.c" "$progs/nested_lib.c" .
# Under SANITIZE=1 libmpipredict carries gcc's ASan runtime, which a
# clang-built program cannot share: gcc only then.
ccs="gcc clang"
[ "${MPP_SANITIZE:-0}" = 1 ] && ccs=gcc
for m in $MPIS; do
	use_mpi "$m"
	build nest "$progs/nest.c"
	for order in callee args; do
		rm -rf runs
		MPIPREDICT_RUNS=runs/ run $n ./nest $order || { fail "$m $order: nest exited with $?"; continue; }
		mpi="$m $order"
		want_nested n.c:1:1:MPI_Bcast n.c:2:1:MPI_Allreduce n.c:3:1:MPI_Bcast \
			n.c:4:1:MPI_Allreduce n.c:5:1:MPI_Allreduce n.c:6:1:MPI_Bcast n.c:7:1:MPI_Allreduce
		check_wants runs/nest.csv 1
	done

	command -v mpipredict-cc >/dev/null || { echo "mpipredict-cc is not built: skipping the rewritten half"; continue; }
	for cc in $ccs; do
		mpi="$m $cc"
		rm -rf nested runs ./*.o
		if [ "$m" = mpich ]; then
			export MPIPREDICT_LIBDIR=$LIBDIR CC=$cc
		else
			export OMPI_CC=$cc
		fi
		# shellcheck disable=SC2086
		$MPI_CC ${MPP_TEST_CFLAGS:-} -O1 -c nested_lib.c &&
			mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -o nested nested.c nested_lib.o ||
			{ fail "$mpi: building nested.c through mpipredict-cc failed"; unset OMPI_CC CC MPIPREDICT_LIBDIR; continue; }
		unset OMPI_CC CC MPIPREDICT_LIBDIR
		MPIPREDICT_RUNS=runs/ run $n ./nested || { fail "$mpi: nested exited with $?"; continue; }
		file=runs/nested.csv
		want_nested "$(site A MPI_Bcast)" "$(site A_IN MPI_Allreduce)" "$(site B MPI_Bcast)" \
			"$(site C MPI_Allreduce)" "$(site C_IN MPI_Allreduce)" "$(site D MPI_Bcast)" \
			"$(site D_MID MPI_Allreduce)"
		check_wants "$file" 1
	done
done
finish
