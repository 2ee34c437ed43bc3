#!/usr/bin/env bash
# make demo: mpipredict end to end on one example MPI program (jacobi3d),
# each step printed as it runs: instrument it with mpipredict-cc, run it at
# a dozen settings (one CSV row per run), train a model, start mpipredictd on
# a loopback port it picks, ask it over REST for a setting it has not seen (from
# job parameters, then from a batch script), run that setting, and print the
# prediction and its interval beside the measured run time.
#
# It runs every step whose programs are built and says plainly which steps it
# could not run and why; it then exits 1. Not a test: it asserts nothing.
# Everything it writes is under $BUILD/demo/ (removed at the start), or
# $MPP_DEMO_DIR when set (tests/e2e/t-demo.sh, which also sets
# MPP_DEMO_QUICK=1 for a smaller design).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
bin=$BUILD/bin
demo=${MPP_DEMO_DIR:-$BUILD/demo}
app=jacobi3d
export PATH="$bin:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

step() { printf '\n==> %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; }
skipped=()
# have PROG...: true when all are built; otherwise records the step as not
# run and says why.
have() {
	local p miss=()
	for p in "$@"; do
		[ -x "$bin/$p" ] || miss+=("$p")
	done
	[ ${#miss[@]} -eq 0 ] && return 0
	echo "NOT RUN: ${miss[*]} not built yet ($BUILD/bin/)"
	skipped+=("$current (needs ${miss[*]})")
	return 1
}

rm -rf "$demo"
mkdir -p "$demo/runs"

current="build"
step "build: programs in $BUILD/bin and $BUILD/lib"
ls "$bin" "$BUILD/lib" 2>/dev/null | sed 's/^/    /'

current="instrument $app"
step "instrument tests/apps/$app.c with mpipredict-cc and build it"
exe=$demo/$app
if have mpipredict-cc mpipredict-instrument; then
	# MPP_TEST_CFLAGS: the sanitizers, when a test runs the demo on the
	# build-san tree.
	cmd=(mpipredict-cc mpicc -O2 ${MPP_TEST_CFLAGS:-} -I"$PWD/tests/apps"
		"$PWD/tests/apps/$app.c" -o "$exe" -lm)
	show "(cd $demo && ${cmd[*]})"
	(cd "$demo" && "${cmd[@]}") || {
		echo "mpipredict-cc failed"
		skipped+=("$current (mpipredict-cc failed)")
	}
fi

# One run of the instrumented program; its row goes to $demo/runs/.
run_app() { # ranks, args...
	local np=$1
	shift
	MPIPREDICT_RUNS=$demo/runs/ mpirun -np "$np" "$exe" "$@"
}

current="run the training design"
step "run the instrumented $app at 12 settings"
# One rank: the model also predicts from job parameters, and at 1 rank every
# counter the model may keep grows as a power law of them.
design=(
	"1 -n 64 -i 200" "1 -n 96 -i 100" "1 -n 96 -i 300" "1 -n 112 -i 200"
	"1 -n 128 -i 100" "1 -n 128 -i 200" "1 -n 144 -i 150" "1 -n 144 -i 300"
	"1 -n 160 -i 100" "1 -n 160 -i 250" "1 -n 176 -i 150" "1 -n 176 -i 250"
)
# The unseen setting, inside the design's range.
unseen=(-n 152 -i 180)
unseen_np=1
# MPP_DEMO_QUICK=1 (tests/e2e/t-demo.sh): half the grid, an eighth of the work.
if [ "${MPP_DEMO_QUICK:-0}" = 1 ]; then
	for k in "${!design[@]}"; do
		set -- ${design[k]}
		design[k]="$1 -n $(($3 / 2)) -i $5"
	done
	unseen=(-n 76 -i 180)
fi
csv=$demo/runs/$app.csv
if [ -x "$exe" ]; then
	for s in "${design[@]}"; do
		set -- $s
		show "MPIPREDICT_RUNS=$demo/runs/ mpirun -np $1 $app ${*:2}"
		run_app "$@" | sed 's/^/    /'
	done
	if [ -s "$csv" ]; then
		echo "$csv: $(($(wc -l <"$csv") - 1)) rows; first columns:"
		cut -d, -f2,6,8,9 "$csv" | column -t -s, | sed 's/^/    /'
	else
		echo "NOT RUN: no run rows in $csv (is libmpipredict built?)"
		skipped+=("$current (no rows written)")
	fi
else
	echo "NOT RUN: the instrumented $app was not built"
	skipped+=("$current (no instrumented program)")
fi

current="train"
step "train a model on the rows"
db=$demo/models.db
if have mpipredict-train; then
	if [ -s "$csv" ]; then
		show "mpipredict-train --db $db --app $app $csv"
		mpipredict-train --db "$db" --app "$app" "$csv" | sed 's/^/    /'
		[ "${PIPESTATUS[0]}" = 0 ] ||
			skipped+=("$current (mpipredict-train failed)")
	else
		echo "NOT RUN: no run rows to train on"
		skipped+=("$current (no rows)")
	fi
fi

current="serve"
step "start mpipredictd on a free loopback port"
pid=
if have mpipredictd && { [ -s "$db" ] || {
	echo "NOT RUN: no model database to serve"
	skipped+=("$current (no model)")
	false
}; }; then
	show "mpipredictd --db $db --listen 127.0.0.1:0 --port-file $demo/port &"
	mpipredictd --db "$db" --listen 127.0.0.1:0 --port-file "$demo/port" \
		2>"$demo/mpipredictd.log" &
	pid=$!
	url=
	for _ in $(seq 100); do
		port=$(cat "$demo/port" 2>/dev/null)
		[ -n "$port" ] && url=http://127.0.0.1:$port &&
			curl -sf "$url/healthz" >/dev/null && break
		sleep 0.1
	done
	echo "listening on port ${port:-?} (port 0: it picked a free one)"
	show "curl $url/healthz"
	curl -sS "$url/healthz" | jq -c . || skipped+=("$current (no answer)")
fi

current="ask over REST"
step "ask for an unseen setting: $app ${unseen[*]} at $unseen_np rank"
p_params= p_script=
# ask JSON: POST it and show the answer on stderr; print it on stdout only
# when it is a prediction (HTTP 200), else return 1.
ask() {
	local res code
	res=$(curl -sS -H 'Content-Type: application/json' -d "$1" \
		-w '\n%{http_code}' "$url/v1/predict")
	code=${res##*$'\n'}
	res=${res%$'\n'*}
	echo "HTTP $code" >&2
	echo "$res" | jq . >&2
	[ "$code" = 200 ] || { echo "FAILED: HTTP $code" >&2; return 1; }
	echo "$res"
}
if [ -n "$pid" ]; then
	body=$(jq -nc --arg app "$app" --argjson np "$unseen_np" \
		--arg args "${unseen[*]}" \
		'{app: $app, ntasks: $np, args: ($args | split(" "))}')
	show "curl -X POST $url/v1/predict -d '$body'"
	p_params=$(ask "$body") || skipped+=("$current, from parameters (failed)")
	script=$(printf '#!/bin/bash\n#SBATCH --ntasks=%s\n#SBATCH --time=00:10:00\nmodule load openmpi\nmpirun -np %s ./%s %s\n' \
		"$unseen_np" "$unseen_np" "$app" "${unseen[*]}")
	echo "batch script:"
	echo "$script" | sed 's/^/    /'
	body=$(jq -nc --arg app "$app" --arg s "$script" '{app: $app, script: $s}')
	show "curl -X POST $url/v1/predict -d '{\"app\": \"$app\", \"script\": ...}'"
	p_script=$(ask "$body") || skipped+=("$current, from the script (failed)")
else
	echo "NOT RUN: no daemon running"
	skipped+=("$current (no daemon)")
fi

current="run the unseen setting"
step "run the unseen setting and compare"
if [ -x "$exe" ] && [ -s "$csv" ]; then
	show "mpirun -np $unseen_np $app ${unseen[*]}"
	run_app "$unseen_np" "${unseen[@]}" | sed 's/^/    /'
	measured=$(tail -n 1 "$csv" | cut -d, -f8)
	tail -n 1 "$csv" >"$demo/unseen-row.csv"
	{ head -n 1 "$csv"; tail -n 1 "$csv"; } >"$demo/unseen.csv"
	p_feat=
	if have mpipredict-predict && [ -s "$db" ]; then
		show "mpipredict-predict --csv --db $db --app $app --features $demo/unseen.csv"
		p_feat=$(mpipredict-predict --csv --db "$db" --app "$app" \
			--features "$demo/unseen.csv")
		echo "    $p_feat"
	fi
	echo
	printf '%-34s %10s %10s %10s %8s\n' "prediction" "runtime_s" "lower_s" \
		"upper_s" "error"
	row() { # label predicted lower upper
		awk -v l="$1" -v p="$2" -v lo="$3" -v hi="$4" -v m="$measured" \
			'BEGIN { printf "%-34s %10.3f %10.3f %10.3f %+7.1f%%\n",
			  l, p, lo, hi, (p - m) / m * 100 }'
	}
	for v in p_params p_script; do
		[ -n "${!v}" ] || continue
		label="REST, from $([ $v = p_params ] && echo parameters || echo the batch script)"
		read -r r lo hi < <(echo "${!v}" |
			jq -r '[.runtime_s, .lower_s, .upper_s] | @tsv')
		[ -n "$r" ] && [ "$r" != null ] && row "$label" "$r" "$lo" "$hi"
	done
	if [ -n "$p_feat" ]; then
		IFS=, read -r _ r lo hi <<<"$p_feat"
		row "CLI, from the run's features" "$r" "$lo" "$hi"
	fi
	printf '%-34s %10.3f\n' "measured (MPI_Init..MPI_Finalize)" "$measured"
else
	echo "NOT RUN: nothing to run or compare"
	skipped+=("$current (no instrumented program or rows)")
fi

if [ -n "$pid" ]; then
	step "stop mpipredictd"
	show "kill $pid"
	kill "$pid"
	wait "$pid" 2>/dev/null
fi

echo
if [ ${#skipped[@]} -gt 0 ]; then
	echo "demo incomplete; these steps did not run:"
	printf '  - %s\n' "${skipped[@]}"
	exit 1
fi
echo "demo complete (files in $demo)"
