# tests/collector/lib.sh: helpers sourced by the collector's tests (not a
# test itself). Gives:
#   MPIS                 the MPI implementations every test covers
#   use_mpi NAME         select openmpi or mpich (private, tests/lib/mpich.sh):
#                        sets MPI_CC, RUN (launcher prefix) and LIBDIR
#   build OUT SRC        compile and link SRC with the selected MPI and its
#                        libmpipredict
#   run N PROG ARGS...   launch N ranks
#   csvget ...           the strict CSV reader (progs/csvget.c)
#   want NAME EXPR       expect feature NAME to be, on rank r of n, the bash
#                        arithmetic EXPR (in r and n); mean and max follow
#   check_wants FILE ROW compare every want with data row ROW of FILE
#   fail MESSAGE         print "MESSAGE" and remember the failure
# and exits with the failure status at the end of the test (call `finish`).
set -u
MPIS="openmpi mpich"
progs=$MPP_SRC/tests/collector/progs
failed=0
n=0
wants=()

fail() {
	echo "$*"
	failed=1
}

finish() {
	exit $failed
}

cc -O2 -o csvget "$progs/csvget.c" || { echo "compiling csvget failed"; exit 1; }

# Under SANITIZE=1 the MPI libraries' own allocations show up as leaks from
# "<unknown module>" (they dlclose their components in MPI_Finalize), which
# no suppression can name: leak checking is off for MPI programs (ASan and
# UBSan stay on), and on for mpipredict-collect.
asan_base=${ASAN_OPTIONS:-}
if [ "${MPP_SANITIZE:-0}" = 1 ]; then
	export ASAN_OPTIONS="$asan_base:detect_leaks=0"
fi
mpipredict-collect() {
	ASAN_OPTIONS=$asan_base command mpipredict-collect "$@"
}
csvget() { ./csvget "$@"; }

use_mpi() {
	mpi=$1
	case $1 in
	openmpi)
		MPI_CC=mpicc RUN=mpirun LIBDIR=$MPP_BUILD/lib ;;
	mpich)
		. "$MPP_SRC/tests/lib/mpich.sh" || exit 1
		MPI_CC=$MPICH_CC RUN=$MPICH_RUN LIBDIR=$MPICH_LIBDIR ;;
	*) echo "use_mpi: unknown MPI $1"; exit 1 ;;
	esac
}

build() {
	# shellcheck disable=SC2086
	$MPI_CC ${MPP_TEST_CFLAGS:-} -O1 -g -Wno-stringop-overflow -I"$MPP_BUILD/include/mpipredict" -o "$1" "$2" \
		-L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lmpipredict ||
		{ echo "compiling $2 with $mpi failed"; exit 1; }
}

run() {
	local np=$1
	shift
	# shellcheck disable=SC2086
	$RUN -np "$np" "$@"
}

want() {
	local name=$1 expr=$2 r v s=0 m=0
	for ((r = 0; r < n; r++)); do
		v=$((expr))
		s=$((s + v))
		((v > m)) && m=$v
	done
	wants+=("$name|$s|$m")
}

check_wants() {
	local file=$1 row=$2 w name s m cols=() got i=0 mean max
	for w in "${wants[@]}"; do
		name=${w%%|*}
		cols+=("$name.mean" "$name.max")
	done
	mapfile -t got < <(csvget "$file" "$row" "${cols[@]}") ||
		{ fail "$mpi n=$n: cannot read row $row of $file"; return; }
	for w in "${wants[@]}"; do
		name=${w%%|*}
		s=${w#*|}
		m=${s#*|}
		s=${s%|*}
		mean=${got[i]-}
		max=${got[i + 1]-}
		i=$((i + 2))
		awk -v g="$mean" -v s="$s" -v n="$n" 'BEGIN { exit !(g != "" && g + 0 == s / n) }' ||
			fail "$mpi n=$n: expected $name.mean = $(awk -v s="$s" -v n="$n" 'BEGIN{print s/n}'), got $mean"
		[ "$max" = "$m" ] || fail "$mpi n=$n: expected $name.max = $m, got $max"
	done
	wants=()
}
