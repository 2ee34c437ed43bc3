#!/usr/bin/env bash
# The plugin finds the application and its arguments in the batch script
# (first srun/mpirun/mpiexec line, its options skipped; or a
# "#MPIPREDICT app=NAME" line), honours "#MPIPREDICT off" anywhere, calls
# nobody when there is no launcher line, and uses argv[0] for srun/salloc
# jobs (no script). Checked on what the daemon receives.
set -u
. "$MPP_SRC/tests/contrib/lib.sh"
start_fake ok okd
conf "url = $url_okd" mode=annotate

# sent LINES...: run a script, print "app args-as-JSON" of the request sent
# (or "none" when nothing was sent).
sent() {
	local n0
	n0=$(requests okd)
	script "$@"
	run
	if [ "$(requests okd)" = "$n0" ]; then echo none; return; fi
	tail -n 1 okd.requests | jq -r '"\(.app) \(.args | tojson)"'
}

expect "srun with options" 'jacobi ["-n","512","--iters","100"]' \
	"$(sent '#SBATCH -n 4' 'module load mpi' 'srun -n 4 --mpi=pmix -c 2 ./jacobi -n 512 --iters 100 > out.txt 2>&1')"
expect "mpirun with --mca KEY VALUE and a path" 'heat ["64","1e-6"]' \
	"$(sent 'mpirun --mca btl self,vader -np 2 --bind-to core /opt/apps/bin/heat 64 1e-6')"
expect "mpiexec after a shell prefix, quoted argument" 'lulesh ["-s","30","a b"]' \
	"$(sent 'time mpiexec -n 8 ./lulesh -s 30 "a b"; echo done')"
expect "continued line" 'jacobi ["-n","512","--iters","5"]' \
	"$(sent 'srun -n 4 \' '    ./jacobi -n 512 \' '    --iters 5')"
expect "#MPIPREDICT app= overrides the executable" 'jacobi ["1024"]' \
	"$(sent '#MPIPREDICT app=jacobi' 'mpirun ./wrapper.sh 1024')"
expect "first launcher line only" 'first ["1"]' \
	"$(sent 'srun ./first 1' 'srun ./second 2')"
expect "#MPIPREDICT off after the launcher line" none \
	"$(sent 'srun ./jacobi -n 512' '#MPIPREDICT off')"
expect "no launcher line" none "$(sent './jacobi -n 512' 'echo srun')"
expect "launcher without an executable" none "$(sent 'srun --help')"

# The example job scripts in contrib/examples/.
ex=$MPP_SRC/contrib/examples
expect "example jacobi.sbatch" 'jacobi ["-n","512","--iters","2000"]' "$(sent "$(cat "$ex/jacobi.sbatch")")"
expect "example named-app.sbatch" 'heat ["1024"]' "$(sent "$(cat "$ex/named-app.sbatch")")"
expect "example opt-out.sbatch" none "$(sent "$(cat "$ex/opt-out.sbatch")")"

n0=$(requests okd)
out=$(MPIPREDICT_CONF=$PWD/plugin.conf "$harness" "$plugin" --argv0 /usr/bin/hostname 2>run.log)
expect "srun job (no script): argv[0]" "$((n0 + 1)) hostname" \
	"$(requests okd) $(tail -n 1 okd.requests | jq -r .app)"
exit $((fails > 0))
