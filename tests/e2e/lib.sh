# tests/e2e/lib.sh: helpers sourced by the end-to-end tests (tests/e2e/t-*.sh)
# and the accuracy benchmark (tests/bench/). Not a test itself; defines
# functions only. Needs MPP_SRC and MPP_BUILD (set by tests/run-tests.sh).

export PATH="$MPP_BUILD/bin:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Under SANITIZE=1 the MPI libraries' own leaks are suppressed by module
# (tests/lsan.supp); that needs full stacks through them.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}fast_unwind_on_malloc=0"

# bad MESSAGE...: one line, and the test fails at its end (the caller
# starts with fail=0 and exits "$fail").
bad() {
	echo "$*"
	fail=1
}

# e2e_need PROG...: exit 77 (skip) naming the programs not built yet.
e2e_need() {
	local p miss=()
	for p in "$@"; do
		[ -x "$MPP_BUILD/bin/$p" ] || miss+=("$p")
	done
	[ ${#miss[@]} -eq 0 ] && return 0
	echo "not built yet: ${miss[*]}"
	exit 77
}

# e2e_instrument APP OUT: build tests/apps/APP.c with mpipredict-cc into OUT
# (an absolute path), with the sanitizer flags of the build under test.
e2e_instrument() {
	local app=$1 out=$2
	# shellcheck disable=SC2086
	mpipredict-cc mpicc -O2 $MPP_TEST_CFLAGS -I"$MPP_SRC/tests/apps" \
		"$MPP_SRC/tests/apps/$app.c" -o "$out" -lm
}

# e2e_start_daemon DB LOG: start mpipredictd on a loopback port it picks
# itself (port 0, written to a port file: no race with other tests), wait
# until /healthz answers; sets E2E_PID and E2E_URL. Returns 1 if it never
# answers.
e2e_start_daemon() {
	local pf port=
	pf=$(mktemp)
	mpipredictd --db "$1" --listen 127.0.0.1:0 --port-file "$pf" 2>"$2" &
	E2E_PID=$!
	for _ in $(seq 100); do
		port=$(cat "$pf" 2>/dev/null)
		if [ -n "$port" ]; then
			E2E_URL=http://127.0.0.1:$port
			curl -sf "$E2E_URL/healthz" >/dev/null && break
		fi
		kill -0 "$E2E_PID" 2>/dev/null || break
		sleep 0.1
	done
	rm -f "$pf"
	[ -n "$port" ] && curl -sf "$E2E_URL/healthz" >/dev/null
}

e2e_stop_daemon() {
	[ -n "${E2E_PID:-}" ] || return 0
	kill "$E2E_PID" 2>/dev/null
	wait "$E2E_PID" 2>/dev/null
	E2E_PID=
}

# e2e_post PATH JSON: POST JSON, print the body then a last line with the
# HTTP status.
e2e_post() {
	curl -sS -H 'Content-Type: application/json' -d "$2" \
		-w '\n%{http_code}\n' "$E2E_URL$1"
}

# e2e_field CSV NAME ROW: value of column NAME in data row ROW (1-based) of
# a run-rows CSV. Only for rows whose fields hold no quoted commas, which is
# what the example applications' arguments give.
e2e_field() {
	awk -F, -v name="$2" -v row="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		NR == row + 1 { if (c) print $c; exit }' "$1"
}
