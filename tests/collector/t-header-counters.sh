#!/usr/bin/env bash
# Loops, branches and MPI calls in headers included by several units are
# counted once per source location (issue 20): a C code whose stencil.h
# holds static inline helpers, included by main.c and solver.c, built in
# one mpipredict-cc command; a C++ code whose include/field.hpp holds a
# class template (constructor, range-for, MPI call in a member) and a
# loop helper taking lambdas, included by three .cpp files as <field.hpp>
# and "field.hpp", built by its own Makefile with -MMD. Under OpenMPI and
# MPICH at 1, 2 and 4 ranks: the instrumented build prints what the plain
# one prints, every header location has exactly one column (not one per
# unit or instantiation) with the exact mean and max, the header's call
# sites take their calls (none untagged), and the dependency files name
# the original header, not its rewritten copy.
. "$MPP_SRC/tests/collector/lib.sh"
command -v mpipredict-cc >/dev/null || { echo "mpipredict-cc is not built"; exit 77; }
command -v c++ >/dev/null || { echo "no C++ compiler"; exit 77; }
command -v make >/dev/null || { echo "no make"; exit 77; }

cp -r "$progs/headers/c" "$progs/headers/cxx" .
ln -s "$(command -v mpipredict-cc)" mpipredict-mpicxx
line() { grep -n "/\* $2 \*/" "$1" | cut -d: -f1; }
col() { # the one header column matching the regular expression $1
	local c
	c=$(csvget -H "$file" | grep -x "$1") && [ "$(printf '%s\n' "$c" | wc -l)" = 1 ] ||
		{ fail "$mpi: expected one column matching $1, got '$c'"; return 1; }
	printf '%s\n' "${c%.mean}"
}
# Elements i < m with i % 4 > 1 (Field's values before any reduction).
big() { echo "(($1) / 4 * 2 + (($1) % 4 > 2 ? ($1) % 4 - 2 : 0))"; }

for m in $MPIS; do
	use_mpi "$m"
	# --- C: one command, two units, one header.
	rm -rf cbuild && cp -r c cbuild
	(
		cd cbuild || exit 1
		$MPI_CC ${MPP_TEST_CFLAGS:-} -O1 -o orig main.c solver.c || exit 1
		if [ "$m" = mpich ]; then
			MPIPREDICT_LIBDIR=$LIBDIR mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -o prog main.c solver.c
		else
			mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -o prog main.c solver.c
		fi
	) 2>cnotes || { fail "$m: building the C program failed: $(cat cnotes)"; continue; }
	grep 'not instrumented' cnotes && fail "$m: expected every site instrumented, got the above"
	h=cbuild/stencil.h
	for n in 1 2 4; do
		rm -rf runs
		want=$(cd cbuild && run $n ./orig) || { fail "$m n=$n: the plain C build exited with $?"; continue; }
		got=$(cd cbuild && MPIPREDICT_RUNS=../runs/ run $n ./prog) ||
			{ fail "$m n=$n: the instrumented C build exited with $?"; continue; }
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "$m n=$n: C: expected output '$want', got '$got'"
		file=runs/prog.csv
		c=$(col "loop:stencil\.h:$(line $h RELAX):[0-9]*\.mean") && want "$c" '3 * (6 + r) + 6'
		c=$(col "then:stencil\.h:$(line $h EVEN):[0-9]*\.mean") && want "$c" '3 * ((6 + r) / 2) + 2'
		c=$(col "else:stencil\.h:$(line $h EVEN):[0-9]*\.mean") && want "$c" '3 * (6 + r) + 6 - 3 * ((6 + r) / 2) - 2'
		c=$(col "call:stencil\.h:$(line $h ALLREDUCE):[0-9]*:MPI_Allreduce\.mean") && want "$c" 2
		c=$(col "bytes:stencil\.h:$(line $h ALLREDUCE):[0-9]*:MPI_Allreduce\.mean") && want "$c" 32
		want mpi:MPI_Allreduce:untagged:calls 0
		check_wants "$file" 1
	done

	# --- C++: the code's own Makefile, three units, one header.
	rm -rf xorig xbuild && cp -r cxx xorig && cp -r cxx xbuild
	if [ "$m" = mpich ]; then
		CC=c++ make -s -C xorig CXX="$MPI_CC" CXXFLAGS="${MPP_TEST_CFLAGS:-} -O1" &&
			CC=c++ MPIPREDICT_CC=$MPI_CC MPIPREDICT_LIBDIR=$LIBDIR \
				make -s -C xbuild CXX="$PWD/mpipredict-mpicxx" CXXFLAGS="${MPP_TEST_CFLAGS:-} -O1"
	else
		make -s -C xorig CXX=mpicxx CXXFLAGS="${MPP_TEST_CFLAGS:-} -O1" &&
			make -s -C xbuild CXX="$PWD/mpipredict-mpicxx" CXXFLAGS="${MPP_TEST_CFLAGS:-} -O1"
	fi 2>xnotes || { fail "$m: building the C++ program failed: $(cat xnotes)"; continue; }
	grep 'not instrumented' xnotes && fail "$m: expected every C++ site instrumented, got the above"
	for d in xbuild/*.d; do
		grep -q 'include/field\.hpp' "$d" || fail "$m: expected $d to name include/field.hpp, got: $(cat "$d")"
		grep -qE 'mpp-cc\.|/[0-9a-f]{16}/field' "$d" && fail "$m: expected $d to name no rewritten copy, got: $(cat "$d")"
	done
	h=xbuild/include/field.hpp
	for n in 1 2 4; do
		rm -rf runs
		want=$(run $n xorig/prog) || { fail "$m n=$n: the plain C++ build exited with $?"; continue; }
		got=$(MPIPREDICT_RUNS=runs/ run $n xbuild/prog) ||
			{ fail "$m n=$n: the instrumented C++ build exited with $?"; continue; }
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "$m n=$n: C++: expected output '$want', got '$got'"
		file=runs/prog.csv
		# Field<double>(6 + r) in main, Field<int>(5) and Field<double>(4).
		c=$(col "loop:field\.hpp:$(line $h FILL):[0-9]*\.mean") && want "$c" '15 + r'
		c=$(col "loop:field\.hpp:$(line $h TOTAL):[0-9]*\.mean") && want "$c" '15 + r'
		# After the reductions, 0 n 2n 3n (0): more than 1 are 2 or 3.
		c=$(col "then:field\.hpp:$(line $h BIG):[0-9]*\.mean") && want "$c" "$(big '6 + r') + 2 * (n > 1 ? 3 : 2)"
		c=$(col "call:field\.hpp:$(line $h REDUCE):[0-9]*:MPI_Allreduce\.mean") && want "$c" 4
		c=$(col "bytes:field\.hpp:$(line $h REDUCE):[0-9]*:MPI_Allreduce\.mean") && want "$c" '2 * 5 * 4 + 3 * 2 * 4 * 8'
		c=$(col "loop:field\.hpp:$(line $h REPEAT):[0-9]*\.mean") && want "$c" '3 + 2 + r'
		want mpi:MPI_Allreduce:untagged:calls 0
		check_wants "$file" 1
	done
done
finish
