# daemon.sh: the real mpipredictd for the Slurm tests and benchmark, with a
# model that mpipredict-train fits on a synthetic run-rows CSV of the app
# "jacobi" (the executable of the tests' job scripts). Sourced after
# cluster.sh (uses wait_for and stop_pid; the caller stops server_pids).
#
# start_daemon DIR [fallback]: trains DIR/models.db from DIR/jacobi.csv and
# starts mpipredictd on a free local port; sets daemon_url, daemon_pid and
# daemon_kind. With "fallback" and no daemon built, starts fake-predictd
# (fixed answer) instead. stop_daemon stops it by PID.

have_real_daemon() {
	[ -x "$build/bin/mpipredictd" ] && [ -x "$build/bin/mpipredict-train" ]
}

# The synthetic runs: a grid size n, an iteration count and the rank count
# drive one loop counter; runtime is a start-up cost plus a cost per
# iteration, with +-3 % deterministic noise. The tests' job (-n 512
# --iters 100 on 2 tasks) lands inside the grid, at about 530 s.
synthetic_runs() {
	awk 'BEGIN {
		print "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:jacobi.c:41:9.mean,call:jacobi.c:57:5:MPI_Allreduce.mean"
		k = 0
		split("128 256 512 1024", ns, " ")
		split("50 100 200 400", is, " ")
		split("1 2 4", ps, " ")
		for (a = 1; a <= 4; a++) for (b = 1; b <= 4; b++) for (c = 1; c <= 3; c++) {
			n = ns[a]; it = is[b]; p = ps[c]; k++
			loop = n * n * it / p
			noise = 1 + 0.03 * sin(k * 12.9898)
			rt = (2 + 4e-5 * loop + 0.01 * it) * noise
			printf "r%d,jacobi,b1,2026-01-01T00:%02d:00Z,,%d,1,%.4f,-n %d --iters %d,%.0f,%d\n",
				k, k % 60, p, rt, n, it, loop, it
		}
	}'
}

start_daemon() {
	local dir=$1
	if ! have_real_daemon; then
		[ "${2:-}" = fallback ] || { echo "mpipredictd is not built"; return 1; }
		"$build/tests/slurm/fake-predictd" --mode ok --port-file "$dir/daemon.port" \
			>"$dir/log/daemon.out" 2>&1 &
		daemon_pid=$!
		server_pids+=($daemon_pid)
		wait_for 10 test -s "$dir/daemon.port" || { echo "fake-predictd did not start"; return 1; }
		daemon_url=http://127.0.0.1:$(cat "$dir/daemon.port")
		daemon_kind="fake-predictd (fixed answer; mpipredictd not built)"
		return 0
	fi
	synthetic_runs >"$dir/jacobi.csv"
	"$build/bin/mpipredict-train" --db "$dir/models.db" "$dir/jacobi.csv" \
		>"$dir/log/train.out" 2>&1 ||
		{ echo "mpipredict-train failed:"; tail -n 5 "$dir/log/train.out"; return 1; }
	"$build/bin/mpipredictd" --db "$dir/models.db" --listen 127.0.0.1:0 \
		--port-file "$dir/daemon.port" >"$dir/log/daemon.out" 2>&1 &
	daemon_pid=$!
	server_pids+=($daemon_pid)
	daemon_kind="mpipredictd (model trained on $(($(wc -l <"$dir/jacobi.csv") - 1)) synthetic runs)"
	if wait_for 10 test -s "$dir/daemon.port"; then
		daemon_url=http://127.0.0.1:$(cat "$dir/daemon.port")
		wait_for 10 curl -sf "$daemon_url/healthz" && return 0
	fi
	echo "mpipredictd did not start:"
	tail -n 5 "$dir/log/daemon.out"
	return 1
}

stop_daemon() {
	stop_pid "$daemon_pid"
}
