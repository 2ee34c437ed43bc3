#!/usr/bin/env bash
# Peer levels cmp (same node and package), socket (same node, other
# package) and net (other node) on a synthetic two-package topology, under
# OpenMPI and MPICH. hwloc reads HWLOC_SYNTHETIC="pack:2 core:2 pu:1" (four
# PUs, two per package); such a topology is not this machine's, so the test
# hook MPIPREDICT_TEST_PU=rank puts world rank r on PU r: ranks 0 and 1 on
# package 0, ranks 2 and 3 on package 1. Nodes are faked with
# MPIPREDICT_TEST_NODE_KEY as in t-node-levels.sh. The point-to-point
# pattern is progs/traffic.c levels() (see t-node-levels.sh): per rank a
# 100-byte message each way around the ring, 10 bytes with r^1, 50 bytes
# each way with r+2 and r-2, 1000 bytes from rank 3 to rank 2, 2000 bytes
# each way with r^1. The collective pattern is split(): one MPI_Allreduce of
# one int (8 bytes per rank) on {0,2} and on {1,3}, counted at the widest
# level of its communicator; then the barrier of `wait` on MPI_COMM_WORLD,
# at the world's widest level.
. "$MPP_SRC/tests/collector/lib.sh"

export HWLOC_SYNTHETIC="pack:2 core:2 pu:1" MPIPREDICT_TEST_PU=rank
n=4
for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for key in none parity block:2; do
		rm -rf runs
		if [ $key = none ]; then
			MPIPREDICT_RUNS=runs/ run $n ./traffic levels split wait
		else
			MPIPREDICT_TEST_NODE_KEY=$key MPIPREDICT_RUNS=runs/ run $n ./traffic levels split wait
		fi || { fail "$m $key: traffic exited with $?"; continue; }
		big='(r >= n - 2) * 1000'
		split='(r == n - 2 || r == n - 1)' # split()'s own 100-byte message
		case $key in
		none)
			# One node: r^1 and the ring's same-package neighbour
			# are cmp, r+-2 and the other neighbour are socket.
			want comm:cmp:bytes "100 + 10 + $big + 4000 + $split * 100"
			want comm:cmp:msgs "1 + 1 + (r >= n - 2) + 2 + $split"
			want comm:socket:bytes 200
			want comm:socket:msgs 3
			want comm:net:bytes 0
			want comm:socket:size:0-63:msgs 2
			want comm:socket:size:64-1023:msgs 1
			want comm:cmp:size:1024-16383:bytes 4000
			want coll:socket:msgs 2
			want coll:socket:bytes 8
			want coll:cmp:msgs 0
			want coll:net:msgs 0
			;;
		parity)
			# Nodes {0,2} and {1,3}: r+-2 is the same node's
			# other package, everything else crosses nodes.
			want comm:cmp:bytes 0
			want comm:socket:bytes 100
			want comm:socket:msgs 2
			want comm:net:bytes "200 + 10 + $big + 4000 + $split * 100"
			want comm:net:msgs "2 + 1 + (r >= n - 2) + 2 + $split"
			want coll:socket:msgs 1
			want coll:socket:bytes 8
			want coll:net:msgs 1
			want coll:net:bytes 0
			;;
		block:2)
			# Nodes {0,1} and {2,3} = packages: no socket level.
			want comm:cmp:bytes "100 + 10 + $big + 4000 + $split * 100"
			want comm:socket:bytes 0
			want comm:socket:msgs 0
			want comm:net:bytes 200
			want comm:net:msgs 3
			want coll:net:msgs 2
			want coll:net:bytes 8
			want coll:socket:msgs 0
			;;
		esac
		want topo:unbound 0
		check_wants runs/traffic.csv 1
	done
	# An unbound process on a two-package node: its binding spans both
	# packages, so it is placed where it last ran and the row says so.
	rm -rf runs
	MPIPREDICT_TEST_PU= MPIPREDICT_RUNS=runs/ run 2 ./traffic levels ||
		fail "$m unbound: traffic exited with $?"
	n=2
	want topo:unbound 1
	check_wants runs/traffic.csv 1
	n=4
	# A malformed hook: one line on stderr, no row, exit status 0.
	rm -rf runs
	MPIPREDICT_TEST_PU=first MPIPREDICT_RUNS=runs/ run 2 ./traffic levels 2>err.txt ||
		fail "$m: with a bad MPIPREDICT_TEST_PU the program exited with $?"
	[ "$(grep -c 'MPIPREDICT_TEST_PU' err.txt)" = 1 ] ||
		fail "$m: expected one line about MPIPREDICT_TEST_PU, got: $(cat err.txt)"
	[ ! -e runs/traffic.csv ] || fail "$m: expected no row with a bad MPIPREDICT_TEST_PU"
done
finish
