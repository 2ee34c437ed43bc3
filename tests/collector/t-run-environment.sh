#!/usr/bin/env bash
# The runtime's environment: MPIPREDICT_DISABLE=1 counts and writes
# nothing; MPIPREDICT_APP names the app and the file; MPIPREDICT_RUNS as a
# file path; the default ./mpipredict-runs/; SLURM_JOB_ID fills job_id;
# MPI_Init_thread(MULTIPLE) counts like MPI_Init; the fixed columns come
# first in docs/design.md's order. OpenMPI and MPICH, 2 ranks.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	rm -rf mpipredict-runs runs one.csv
	MPIPREDICT_DISABLE=1 run 2 ./traffic loops || fail "$m: disabled run exited with $?"
	[ -e mpipredict-runs ] && fail "$m: expected nothing written with MPIPREDICT_DISABLE=1"
	SLURM_JOB_ID=4242 run 2 ./traffic loops || fail "$m: run exited with $?"
	got=$(csvget mpipredict-runs/traffic.csv 1 job_id app nprocs nnodes)
	[ "$got" = "$(printf '4242\ntraffic\n2\n1')" ] ||
		fail "$m: expected job_id 4242, app traffic, 2 procs, 1 node in ./mpipredict-runs/traffic.csv, got $got"
	hdr=$(csvget -H mpipredict-runs/traffic.csv | head -9 | tr '\n' ,)
	[ "$hdr" = "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args," ] ||
		fail "$m: expected the fixed columns first, got $hdr"
	row=$(csvget mpipredict-runs/traffic.csv 1 started_at runtime_s build_id run_id | tr '\n' ' ')
	[[ $row =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\ [0-9]+\.[0-9]{6}\ [0-9a-f]{16}\ [0-9a-f-]{36}\ $ ]] ||
		fail "$m: expected ISO-8601 started_at, runtime_s, hex build_id, UUID run_id, got $row"
	MPIPREDICT_APP=myapp MPIPREDICT_RUNS=runs/ run 2 ./traffic loops
	[ "$(csvget runs/myapp.csv 1 app)" = myapp ] || fail "$m: expected runs/myapp.csv with app myapp"
	MPIPREDICT_RUNS=one.csv run 2 ./traffic thread loops p2p || fail "$m: thread run exited with $?"
	got=$(csvget one.csv 1 loop:t.c:200:5.max bytes:t.c:S_SEND:1:MPI_Send.max bytes:t.c:S_RECV:1:MPI_Recv.mean)
	[ "$got" = "$(printf '20\n40\n20')" ] ||
		fail "$m: expected loop max 20, Send max 40, Recv mean 20 under MPI_Init_thread, got $got"
done
finish
