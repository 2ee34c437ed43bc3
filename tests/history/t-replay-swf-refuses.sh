#!/usr/bin/env bash
# mpipredict-replay refuses a trace value no real trace holds, before
# converting it (a huge processor count once reached an int conversion,
# undefined behaviour that UBSan reported): nan and inf, a fractional
# processor count, a negative value that is not -1 (unknown), a value too
# large (1.63333e+105 processors, the one the fuzzer found; a submit time
# past 1e12 s). Each is exit 2 with one line naming the file, line and
# field, and nothing on stdout. -1 stays "unknown": a job without a
# requested time is left out and counted, not refused.
set -u
fail=0
good='1 0 0 100 2 -1 -1 2 200 -1 1 7 1 3 -1 -1 -1 -1'
# LINE FIELD VALUE WANT: a trace of a comment, a good job and the job with
# field FIELD set to VALUE on line 3; expect WANT in the one-line error.
refused() {
	{ echo '; a comment'; echo "$good"; echo "$good" | awk -v f="$2" -v v="$3" '{ $1 = 2; $f = v; print }'; } > t.swf
	out=$(mpipredict-replay t.swf 2>err); rc=$?
	lines=$(wc -l < err)
	if [ $rc -ne 2 ] || [ -n "$out" ] || [ "$lines" -ne 1 ] || ! grep -qF -- "t.swf:3: field $2: $4" err; then
		echo "field $2 = $3: expected exit 2, no output, one line with 't.swf:3: field $2: $4', got $rc, '$out', '$(cat err)'"
		fail=1
	fi
}
refused 3 2 nan "'nan' is not a finite number"
refused 3 9 inf "'inf' is not a finite number"
refused 3 4 -1e999 "'-1e999' is not a finite number"
refused 3 5 2.5 "2.5 is not a whole number (of processors)"
refused 3 8 0.5 "0.5 is not a whole number (of processors)"
refused 3 12 7.25 "7.25 is not a whole number (of an identifier)"
refused 3 4 -5 "-5 is negative and not -1 (unknown)"
refused 3 2 -0.5 "-0.5 is negative and not -1 (unknown)"
refused 3 5 1.63333e+105 "1.63333e+105 is too large for processors"
refused 3 2 2e12 "2e+12 is too large for seconds"
refused 3 14 1e16 "1e+16 is too large for an identifier"
# -1 where a value is unknown: a job without a requested time is left out
# (the SC'15 study's filter) and counted, with a notice on stderr.
{ echo "$good"; echo "$good" | awk '{ $1 = 2; $9 = -1; print }'; } > t.swf
out=$(mpipredict-replay t.swf 2>err); rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | grep -q ' jobs=1 skipped=1 .* no_request=1 ' &&
	grep -q 't.swf: 1 jobs without a requested time' err ||
	{ echo "request -1: expected exit 0, jobs=1 skipped=1 no_request=1 and a notice, got $rc '$out' '$(cat err)'"; fail=1; }
# An unused field may hold any finite number.
echo "$good" | awk '{ $6 = -7.5; $18 = 1e300; print }' > t.swf
mpipredict-replay t.swf >/dev/null 2>err || { echo "unused fields: expected exit 0, got '$(cat err)'"; fail=1; }
exit $fail
