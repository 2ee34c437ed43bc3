#!/usr/bin/env bash
# Point-to-point bytes split into intra-node and inter-node traffic, with
# the message-size histogram per level, under OpenMPI and MPICH. Nodes are
# faked with the test hook MPIPREDICT_TEST_NODE_KEY (parity: even and odd
# ranks on two nodes; block:2: ranks {0,1} and {2,3}); without it all ranks
# share this machine. The pattern (progs/traffic.c, levels()): a 100-byte
# ring Sendrecv, 10 bytes from even rank r to r^1, a 50-byte Sendrecv with
# r+2 / r-2, 1000 bytes from world rank n-1 to n-2 through a communicator
# with reversed ranks (wrong without rank translation), and 2000 bytes each
# way between r and r^1 through Irecv + Send.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for key in parity block:2 none; do
		for n in 2 4; do
			[ $n = 2 ] && [ $key != parity ] && continue
			rm -rf runs
			if [ $key = none ]; then
				MPIPREDICT_RUNS=runs/ run $n ./traffic levels
			else
				MPIPREDICT_TEST_NODE_KEY=$key MPIPREDICT_RUNS=runs/ run $n ./traffic levels
			fi || { fail "$m n=$n $key: traffic exited with $?"; continue; }
			nodes=$(csvget runs/traffic.csv 1 nnodes)
			wantn=2
			[ $key = none ] && wantn=1
			[ "$nodes" = $wantn ] || fail "$m n=$n $key: expected nnodes $wantn, got $nodes"
			big='(r >= n - 2) * 1000' # the split communicator's message
			case $key in
			parity)
				# Everything crosses nodes except the r+2 exchange
				# (with itself at n = 2).
				want comm:cmp:bytes 100
				want comm:cmp:msgs 2
				want comm:net:bytes "200 + 10 + $big + 4000"
				want comm:net:msgs '2 + 1 + (r >= n - 2) + 2'
				want comm:cmp:size:0-63:msgs 2
				want comm:cmp:size:0-63:bytes 100
				want comm:net:size:0-63:msgs 1
				want comm:net:size:0-63:bytes 10
				want comm:net:size:64-1023:msgs '2 + (r >= n - 2)'
				want comm:net:size:64-1023:bytes "200 + $big"
				want comm:net:size:1024-16383:msgs 2
				want comm:net:size:1024-16383:bytes 4000
				want comm:net:size:16384-262143:msgs 0
				;;
			block:2)
				# The ring crosses nodes once per rank; r^1 and the
				# split message stay on the node; r+2 crosses.
				want comm:cmp:bytes "100 + 10 + $big + 4000"
				want comm:net:bytes 200
				want comm:cmp:size:1024-16383:bytes 4000
				want comm:net:size:0-63:msgs 2
				;;
			none)
				want comm:cmp:bytes "200 + 10 + 100 + $big + 4000"
				want comm:net:bytes 0
				want comm:cmp:msgs '7 + (r >= n - 2)'
				;;
			esac
			# Per site bytes do not depend on the nodes.
			want bytes:t.c:S_LV_IRECV:1:MPI_Irecv 2000
			want bytes:t.c:S_LV_SPLIT_SEND:1:MPI_Send '(r == n - 1) * 1000'
			check_wants runs/traffic.csv 1
		done
	done
	# A malformed hook: one line on stderr, no row, exit status 0.
	rm -rf runs
	MPIPREDICT_TEST_NODE_KEY=bogus MPIPREDICT_RUNS=runs/ run 2 ./traffic levels 2>err.txt ||
		fail "$m: with a bad MPIPREDICT_TEST_NODE_KEY the program exited with $?"
	[ "$(grep -c 'MPIPREDICT_TEST_NODE_KEY' err.txt)" = 1 ] ||
		fail "$m: expected one line about MPIPREDICT_TEST_NODE_KEY, got: $(cat err.txt)"
	[ ! -e runs/traffic.csv ] || fail "$m: expected no row with a bad MPIPREDICT_TEST_NODE_KEY"
done
finish
