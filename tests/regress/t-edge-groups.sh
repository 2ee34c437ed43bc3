#!/usr/bin/env bash
# Issue 40: parameters that are equal or collinear (in logarithms) over the
# training runs are one size: one group, one edge check, and counted once
# in the distance past the ranges that widens an answer's interval.
#
# Case 1, three equal size arguments (a molecular-dynamics code always run
# with -x = -y = -z): the same rows trained twice, as app xyz with
# "-x N -y N -z N -i IT" and as app x1 with "-x N -i IT". Asserted:
#   - train --json puts -y and -z in -x's group, and their edge checks
#     are -x's (one check, not three);
#   - train --verbose prints the group {-x, -y, -z};
#   - the checks' distance past their ranges is x1's (the group counted
#     once), and past the range (64 > 48) from parameters, xyz's answer
#     and its interval equal x1's within 0.5 %.
#
# Case 2, a rank grid -i -j -k whose product is nprocs (i, j, k in 1, 2,
# 4; the problem size -n beside it): the groups are {nprocs, -i, -j, -k}
# and {-n}; a job past the range in nprocs and in -k at once says both.
fail() { echo "$*"; exit 1; }
command -v jq >/dev/null || { echo "jq missing"; exit 77; }
DB=$PWD/models.db

hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:md.c:10:5.mean,loop:md.c:40:5.mean'
# gen_xyz APP ARGSTYLE: 5 sizes x 2 step counts x 3 repeats, 4 % noise
gen_xyz() {
	awk -v hdr="$hdr" -v app="$1" -v style="$2" 'BEGIN {
		print hdr
		s = 4242; k = 0
		split("16 24 32 40 48", ns, " "); split("100 200", is, " ")
		for (a = 1; a <= 5; a++) for (b = 1; b <= 2; b++) for (rep = 1; rep <= 3; rep++) {
			n = ns[a]; it = is[b]; w = n * n * n
			s = (s * 1103515245 + 12345) % 2147483648; u = (s % 1000) / 1000 - 0.5
			c = 2e-8 * (1 + 0.6 * (n / 48) ^ 4)
			y = (0.05 + c * w * it + 4e-7 * n * n * it) * (1 + 0.04 * u)
			args = style == 3 ? sprintf("-x %d -y %d -z %d -i %d", n, n, n, it) : sprintf("-x %d -i %d", n, it)
			printf "%s-r%d,%s,b1,t,,1,1,%.9f,%s,%d,%d\n", app, ++k, app, y, args, w * it, n * n * it
		}
	}'
}
gen_xyz xyz 3 >xyz.csv
gen_xyz x1 1 >x1.csv
mpipredict-train --db "$DB" --json xyz.csv x1.csv >train.json 2>err.txt ||
	fail "expected training to work: $(cat err.txt)"
e() { jq -r --arg a "$1" --arg p "$2" --arg k "$3" '.models[] | select(.app == $a) | .edges[$p][$k]' train.json; }
for p in -y -z; do
	[ "$(e xyz "$p" group)" = -x ] ||
		fail "xyz: expected $p in -x's group, got '$(e xyz "$p" group)' ($(jq -c '.models[] | select(.app == "xyz") | .edges' train.json))"
done
cx=$(e xyz -x check_pct)
awk -v c="$cx" 'BEGIN { exit !(c + 0 > 0) }' ||
	fail "xyz: expected an -x edge check (the case would test nothing), got '$cx'"
for p in -y -z; do
	[ "$(e xyz "$p" check_pct)" = "$cx" ] || fail "xyz: expected $p's check to be -x's ($cx), got $(e xyz "$p" check_pct)"
done
# The checks' distance past their ranges counts the group once: xyz's
# is x1's (three members counted apart, it was three times x1's).
jq -e '[.models[] | .extrapolation_distance] | length == 2 and .[0] > 0 and ((.[0] / .[1] - 1) | fabs) < 1e-9' train.json >/dev/null ||
	fail "expected xyz's extrapolation distance to be x1's, got $(jq -c '[.models[] | {app, extrapolation_distance}]' train.json)"
mpipredict-train --db v.db --verbose xyz.csv >verbose.txt 2>err.txt || fail "expected --verbose training to work: $(cat err.txt)"
grep -q 'parameter groups: .*{-x, -y, -z}' verbose.txt ||
	fail "expected --verbose to print the group {-x, -y, -z}, got: $(grep -i group verbose.txt)"

mpipredict-predict --db "$DB" --json --app xyz --args "-x 64 -y 64 -z 64 -i 200" --ntasks 1 >p3.json 2>err.txt ||
	fail "expected xyz's answer at 64: $(cat err.txt)"
mpipredict-predict --db "$DB" --json --app x1 --args "-x 64 -i 200" --ntasks 1 >p1.json 2>err.txt ||
	fail "expected x1's answer at 64: $(cat err.txt)"
a3=$(jq -r '.answers[0].runtime_s' p3.json)
a1=$(jq -r '.answers[0].runtime_s' p1.json)
u3=$(jq -r '.answers[0].upper_s' p3.json)
u1=$(jq -r '.answers[0].upper_s' p1.json)
echo "at 64: xyz $a3 s (upper $u3), x1 $a1 s (upper $u1)"
jq -e '.answers[0].extrapolated | length == 3' p3.json >/dev/null ||
	fail "xyz: expected -x, -y and -z past their ranges at 64, got $(jq -c '.answers[0].extrapolated' p3.json)"
awk -v a="$a3" -v b="$a1" 'BEGIN { exit !(a > 0 && b > 0 && (a / b - 1) ^ 2 < 0.005 ^ 2) }' ||
	fail "expected xyz's answer at 64 ($a3 s) within 0.5 % of the one-parameter model's ($a1 s)"
awk -v a="$u3" -v b="$u1" 'BEGIN { exit !(a > 0 && b > 0 && (a / b - 1) ^ 2 < 0.005 ^ 2) }' ||
	fail "expected xyz's upper bound at 64 ($u3 s) within 0.5 % of the one-parameter model's ($u1 s): the group counted once"

# Case 2: the rank grid.
hdr2='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:grid.c:20:5.mean,loop:grid.c:60:5.mean'
awk -v hdr="$hdr2" 'BEGIN {
	print hdr
	s = 777; k = 0
	split("1 2 4", d, " "); split("32 48 64", ns, " ")
	for (a = 1; a <= 3; a++) for (b = 1; b <= 3; b++) for (c = 1; c <= 3; c++) for (q = 1; q <= 3; q++) {
		i = d[a]; j = d[b]; kk = d[c]; n = ns[q]; np = i * j * kk
		w = n * n * n * 100
		s = (s * 1103515245 + 12345) % 2147483648; u = (s % 1000) / 1000 - 0.5
		cost = 2e-8 * (1 + 0.5 * (np / 64) ^ 2)
		y = (0.05 + cost * w + 3e-7 * n * n * 100) * (1 + 0.03 * u)
		printf "grid-r%d,grid,b1,t,,%d,1,%.9f,-n %d -i %d -j %d -k %d,%d,%d\n", ++k, np, y, n, i, j, kk, w, n * n * 100
	}
}' >grid.csv
mpipredict-train --db "$DB" --json grid.csv >grid.json 2>err.txt ||
	fail "grid: expected training to work: $(cat err.txt)"
g() { jq -r --arg p "$1" --arg k "$2" '.models[0].edges[$p][$k]' grid.json; }
for p in -i -j -k; do
	[ "$(g "$p" group)" = nprocs ] ||
		fail "grid: expected $p in nprocs's group, got '$(g "$p" group)' ($(jq -c '.models[0].edges' grid.json))"
done
[ "$(g -n group)" = -n ] || fail "grid: expected -n in a group of its own, got '$(g -n group)'"
mpipredict-predict --db "$DB" --json --app grid --args "-n 48 -i 4 -j 4 -k 8" --ntasks 128 >pg.json 2>err.txt ||
	fail "grid: expected an answer at 128 ranks: $(cat err.txt)"
echo "grid: at 128 ranks (-k 8): extrapolated $(jq -c '.answers[0].extrapolated' pg.json)"
jq -e '.answers[0].extrapolated | index("nprocs") and index("-k")' pg.json >/dev/null ||
	fail "grid: expected nprocs and -k extrapolated, got $(jq -c '.answers[0].extrapolated' pg.json)"
exit 0
