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
