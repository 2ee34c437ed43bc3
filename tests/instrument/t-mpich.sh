#!/usr/bin/env bash
# MPICH as well as OpenMPI: with the private MPICH of tests/lib/mpich.sh,
# `mpipredict-cc $MPICH_CC` finds MPICH's mpi.h for parsing (the wrapper
# there knows neither -showme nor -show), the instrumented example
# applications (all sites instrumented) print what the plain MPICH builds print at 1, 2 and 4 ranks,
# and the MPICH build of the runtime writes the exact counts of a small
# program with known trip counts.
. "$MPP_SRC/tests/instrument/lib.sh"
. "$MPP_SRC/tests/lib/mpich.sh" || fail "the private MPICH could not be set up"
export MPIPREDICT_LIBDIR=$MPICH_LIBDIR
apps=$MPP_SRC/tests/apps
declare -A args=([prime]="-n 3000 -i 2" [cg]="-n 6 -i 10")
for a in prime cg; do
	# shellcheck disable=SC2086
	$MPICH_CC -O2 -std=c11 -D_GNU_SOURCE $CFLAGS_T "$apps/$a.c" -o "$a.orig" -lm || fail "$a: MPICH build fails"
	# shellcheck disable=SC2086
	"$MCC" "$MPICH_CC" -O2 -std=c11 -D_GNU_SOURCE $CFLAGS_T "$apps/$a.c" -o "$a" -lm 2>"$a.notes" ||
		fail "$a: mpipredict-cc build fails: $(cat "$a.notes")"
	grep -e 'not instrumented' -e mpipredict "$a.notes" &&
		fail "$a: expected every site instrumented, got the above"
	for np in 1 2 4; do
		# shellcheck disable=SC2086
		want=$($MPICH_RUN -np $np "./$a.orig" ${args[$a]} 2>/dev/null)
		# shellcheck disable=SC2086
		got=$(MPIPREDICT_RUNS=$PWD/runs.csv $MPICH_RUN -np $np "./$a" ${args[$a]} 2>err.txt) ||
			fail "$a at $np ranks exits $?: $(tail -3 err.txt)"
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "$a at $np ranks: expected '$want', got '$got'"
	done
done

cat >loops.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank, v = 1, s = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 7; i++)
		MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d\n", s);
	MPI_Finalize();
	return 0;
}
C
# shellcheck disable=SC2086
"$MCC" "$MPICH_CC" $CFLAGS_T loops.c -o loops || fail "loops.c: mpipredict-cc build fails"
MPIPREDICT_RUNS=$PWD/loops.csv $MPICH_RUN -np 2 ./loops >out.txt 2>err.txt || fail "loops exits $?: $(tail -3 err.txt)"
[ "$(cat out.txt)" = 2 ] || fail "loops: expected 2, got $(cat out.txt)"
val() { awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i } END { print c ? $c : "missing" }' loops.csv; }
for kv in loop:loops.c:8:2.mean=7 call:loops.c:9:3:MPI_Allreduce.max=7 then:loops.c:10:2.mean=0.5 \
	bytes:loops.c:9:3:MPI_Allreduce.mean=56; do
	got=$(val "${kv%=*}")
	awk -v a="$got" -v b="${kv#*=}" 'BEGIN { exit !(a != "missing" && a + 0 == b + 0) }' ||
		fail "${kv%=*}: expected ${kv#*=}, got $got"
done
echo ok
