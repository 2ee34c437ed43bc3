# shellcheck shell=bash
# tests/regress/lib.sh: sourced by the regress tests that answer measured
# runs held out of a training.

# answer_held DB APP CSV: for each run of CSV, a line "runtime_s
# ,predicted,lower,upper": its answer from parameters (its args and
# nprocs), as mpipredict-predict --csv prints it. Exit 1, naming the run's
# args, when one is not answered.
answer_held() {
	tail -n +2 "$3" | while IFS=, read -r _ _ _ _ _ np _ y args _; do
		a=$(mpipredict-predict --db "$1" --app "$2" --args "$args" --ntasks "$np" --csv 2>/dev/null | tail -n 1) ||
			{ echo "no answer for '$args'"; return 1; }
		echo "$y $a"
	done
}

# held_mape FILE: the MAPE (percent, one decimal) of answer_held's lines.
held_mape() {
	awk -F'[ ,]' '{ d = ($(NF-2) - $1) / $1; s += d < 0 ? -d : d } END { printf "%.1f", 100 * s / NR }' "$1"
}

# held_outside FILE [upper]: how many of answer_held's lines fall outside
# their interval (with "upper": above their upper bound only).
held_outside() {
	awk -F'[ ,]' -v upper="${2:-}" '{ if ($1 > $NF + 0 || (upper == "" && $1 < $(NF-1) + 0)) bad++ }
		END { print bad + 0 }' "$1"
}

# held_check DB APP CSV MAX [upper]: answer CSV's runs (answers.txt), print
# them and their MAPE; return 1, saying why, unless every run is inside its
# interval (with "upper": under its upper bound) and the MAPE is under MAX %.
held_check() {
	answer_held "$1" "$2" "$3" >answers.txt || { tail -n 1 answers.txt; return 1; }
	cat answers.txt
	[ "$(held_outside answers.txt "${5:-}")" = 0 ] ||
		{ echo "expected every held run ${5:+under its upper bound}${5:-inside its interval}"; return 1; }
	e=$(held_mape answers.txt)
	echo "past the range from parameters: $e %"
	awk -v e="$e" -v m="$4" 'BEGIN { exit !(e < m) }' ||
		{ echo "expected the held runs within $4 % from parameters, got $e %"; return 1; }
}
