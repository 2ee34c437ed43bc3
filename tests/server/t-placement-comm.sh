#!/usr/bin/env bash
# Issue 16, part 4: model:comm_s re-evaluated for a placement the app was
# never trained on (regress/placement.h), through mpipredict-predict and
# POST /v1/predict.
#
# The store holds a machine profile (cmp and net levels, one package). 40
# synthetic runs of a halo code, all at 2 ranks on 1 node, with
# `--size N --steps S`: per rank 20 N S messages of 64 N^0.2 bytes on
# average, S collective calls of 8 bytes each, all at level cmp; a loop
# counter N^2 S; runtime_s = 0.5 + 2e-9 N^2 S + the LogGPS time (loggps.h,
# worked out here in awk) with 1 % noise. Training keeps model:comm_s.
# Asked at the trained placement, the answer is not extrapolated. Asked at
# 2 nodes x 1 rank, it must differ from that answer by the term's
# coefficient times the modelled difference (net instead of cmp, no
# contention), computed here from the profile, and carry extrapolated
# [nnodes, ranks_per_node] with an interval at least as wide; at 2 nodes x
# 2 ranks, [nprocs, nnodes] and a third of the peers on the same node. The
# daemon must answer the same.
. "$MPP_SRC/tests/server/lib.sh"

profile='{"machine": "m", "created_at": "2026-11-24T03:00:00Z", "nodes_seen": 2,
 "packages_per_node": 1, "cores_per_node": 4,
 "levels": {
  "cmp": {"o": 1e-6, "Os": 1e-9, "Or": 2e-9, "g": 3e-7, "L": 1e-6, "G": 1e-10,
          "h": [1e-7, 2e-7, 4e-7], "C": [1e-11, 2e-11, 4e-11],
          "residual": {"o": 0, "Os": 0, "Or": 0, "g": 0, "L": 0, "G": 0, "h": 0, "C": 0}, "samples": 1},
  "socket": null,
  "net": {"o": 1e-6, "Os": 1e-9, "Or": 2e-9, "g": 3e-7, "L": 4e-6, "G": 5e-10,
          "h": [2e-7, 4e-7, 8e-7], "C": [2e-11, 4e-11, 8e-11],
          "residual": {"o": 0, "Os": 0, "Or": 0, "g": 0, "L": 0, "G": 0, "h": 0, "C": 0}, "samples": 1}},
 "missing": {"socket": "one package"}}'
# comm N S LEVEL OTHERS NPROCS: one rank's modelled time (loggps.h) with
# all point-to-point traffic at LEVEL (cmp|net|mix: 1/3 cmp, 2/3 net) and
# collectives at the widest level.
comm() {
	awk -v N="$1" -v S="$2" -v lv="$3" -v k="$4" -v P="$5" 'BEGIN {
		o = 1e-6; os = 1e-9; or = 2e-9
		Lc = 1e-6; Gc = 1e-10; split("1e-7 2e-7 4e-7", hc, " "); split("1e-11 2e-11 4e-11", cc, " ")
		Ln = 4e-6; Gn = 5e-10; split("2e-7 4e-7 8e-7", hn, " "); split("2e-11 4e-11 8e-11", cn, " ")
		m = 20 * N * S; b = m * 64 * N ^ 0.2; cm = S; cb = 8 * S
		r = P > 1 ? log(P) / log(2) : 0; r = r == int(r) ? r : int(r) + 1
		fc = lv == "cmp" ? 1 : lv == "mix" ? 1 / 3 : 0; fn = 1 - fc
		hcx = k ? hc[k] : 0; ccx = k ? cc[k] : 0; hnx = k ? hn[k] : 0; cnx = k ? cn[k] : 0
		t = fc * (m / 2 * (2 * o + 2 * hcx + Lc) + b / 2 * (os + or + Gc + ccx))
		t += fn * (m / 2 * (2 * o + 2 * hnx + Ln) + b / 2 * (os + or + Gn + cnx))
		if (lv == "cmp") t += cm * r * (2 * o + 2 * hcx + Lc) + cb / 2 * (os + or + Gc + ccx)
		else t += cm * r * (2 * o + 2 * hnx + Ln) + cb / 2 * (os + or + Gn + cnx)
		printf "%.12g\n", t }'
}
{
	printf 'run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:halo.c:40:5.mean'
	for l in cmp socket net; do
		printf ',comm:%s:msgs.mean,comm:%s:bytes.mean,coll:%s:msgs.mean,coll:%s:bytes.mean' $l $l $l $l
	done
	printf '\n'
	s=977
	for i in $(seq 40); do
		s=$(( (s * 1103515245 + 12345) % 2147483648 )); N=$(( 100 + s % 901 ))
		s=$(( (s * 1103515245 + 12345) % 2147483648 )); S=$(( 10 + s % 91 ))
		s=$(( (s * 1103515245 + 12345) % 2147483648 )); u=$(( s % 2001 ))
		c=$(comm $N $S cmp 1 2)
		awk -v i=$i -v N=$N -v S=$S -v c="$c" -v u=$u 'BEGIN {
			m = 20 * N * S; b = m * 64 * N ^ 0.2
			y = (0.5 + 2e-9 * N * N * S + c) * (1 + (u - 1000) / 1e5)
			printf "r%d,halo,b1,2026-11-24T00:00:00Z,,2,1,%.9g,--size %d --steps %d,%d", i, y, N, S, N * N * S
			printf ",%.9g,%.9g,%d,%d,0,0,0,0,0,0,0,0\n", m, b, S, 8 * S }'
	done
} >runs.csv

mpipredict-train --db "$DB" runs.csv >/dev/null 2>err.txt || fail "expected a first training to create the store: $(cat err.txt)"
sqlite3 "$DB" "INSERT INTO machine_profiles (machine, created_at, profile) VALUES ('m', '2026-11-24T03:00:00Z', '$profile')"
mpipredict-train --db "$DB" --json runs.csv >train.json 2>err.txt || fail "expected training to work: $(cat err.txt)"
jq -e '[.models[0].terms[].feature] | index("model:comm_s")' train.json >/dev/null ||
	fail "expected model:comm_s among the terms, got $(jq -c '[.models[0].terms[].feature]' train.json)"
pb=$(jq -r '.models[0].params_basis' train.json)
[ "$pb" = parameters ] || fail "expected the parameters path by the counters, got $pb"
# The term's coefficient on the parameters path (pcoef, or coef without one).
coef=$(sqlite3 "$DB" "SELECT coalesce(t.pcoef, t.coef) FROM model_terms t JOIN models m ON m.id = t.model_id WHERE m.active = 1 AND t.feature = 'model:comm_s'")
[ -n "$coef" ] || fail "expected the stored term model:comm_s"
[ "$(sqlite3 "$DB" "SELECT comm_profile IS NOT NULL FROM models WHERE active = 1")" = 1 ] ||
	fail "expected the model to keep its machine profile (models.comm_profile)"

N=640 S=55
# predict NTASKS NODES -> "runtime lower upper" on stdout; extrapolated in ./xerr
predict() {
	mpipredict-predict --csv --db "$DB" --app halo --args "--size $N --steps $S" --ntasks "$1" --nodes "$2" >p.csv 2>xerr ||
		fail "expected mpipredict-predict at $1 tasks on $2 nodes to work: $(cat xerr)"
	awk -F, '{ print $2, $3, $4 }' p.csv
}
read -r y1 lo1 hi1 <<<"$(predict 2 1)"
[ -s xerr ] && fail "expected no extrapolation at the trained placement, got: $(cat xerr)"
read -r y2 lo2 hi2 <<<"$(predict 2 2)"
grep -q 'extrapolated: nnodes, ranks_per_node (' xerr ||
	fail "expected extrapolated nnodes, ranks_per_node at 2 nodes x 1 rank, got: $(cat xerr)"
c1=$(comm $N $S cmp 1 2) c2=$(comm $N $S net 0 2)
awk -v a="$y1" -v b="$y2" -v k="$coef" -v c1="$c1" -v c2="$c2" 'BEGIN {
	want = k * (c2 - c1); got = b - a; d = got - want; if (d < 0) d = -d
	exit !(want != 0 && d <= 1e-4 * (want < 0 ? -want : want) + 1e-5 * a) }' ||
	fail "expected the 2-node answer $y2 to differ from the 1-node one $y1 by $coef x ($c2 - $c1) s"
awk -v a="$lo1" -v b="$hi1" -v c="$lo2" -v d="$hi2" 'BEGIN { exit !(d / c >= b / a - 1e-9) }' ||
	fail "expected the extrapolated interval [$lo2, $hi2] at least as wide (ratio) as [$lo1, $hi1]"
read -r y4 _ _ <<<"$(predict 4 2)"
grep -q 'extrapolated: nprocs, nnodes (' xerr ||
	fail "expected nprocs and nnodes extrapolated at 2 nodes x 2 ranks (2 ranks per node were trained), got: $(cat xerr)"
# At 4 ranks on 2 nodes, a third of a rank's peers share its node (cmp, one
# other core contending), two thirds are on the other (net), and the
# collectives pay 2 latencies at level net.
c4=$(comm $N $S mix 1 4)
awk -v a="$y1" -v b="$y4" -v k="$coef" -v c1="$c1" -v c4="$c4" 'BEGIN {
	want = k * (c4 - c1); got = b - a; d = got - want; if (d < 0) d = -d
	exit !(want != 0 && d <= 1e-4 * (want < 0 ? -want : want) + 1e-5 * a) }' ||
	fail "expected the 2 x 2 answer $y4 to differ from the 1-node one $y1 by $coef x ($c4 - $c1) s"

# The daemon: the same answers and the extrapolated names.
start_daemon
ask() { # NTASKS NODES
	st=$(req POST /v1/predict "{\"app\":\"halo\",\"ntasks\":$1,\"nodes\":$2,\"args\":\"--size $N --steps $S\"}")
	expect_status 200 "$st" "predict at $1 tasks on $2 nodes"
}
ask 2 1
jq -e 'has("extrapolated") | not' body >/dev/null || fail "expected no extrapolated at the trained placement, got $(cat body)"
awk -v a="$(jq .runtime_s body)" -v b="$y1" 'BEGIN { d = a - b; exit !(d * d <= 1e-10 * b * b) }' ||
	fail "expected the daemon's answer at 1 node to be the CLI's $y1, got $(cat body)"
ask 2 2
jq -e '(.extrapolated | sort) == ["nnodes", "ranks_per_node"]' body >/dev/null ||
	fail "expected extrapolated [nnodes, ranks_per_node] at 2 nodes x 1 rank, got $(cat body)"
awk -v a="$(jq .runtime_s body)" -v b="$y2" 'BEGIN { d = a - b; exit !(d * d <= 1e-10 * b * b) }' ||
	fail "expected the daemon's answer at 2 nodes to be the CLI's $y2, got $(cat body)"
ask 4 2
jq -e '(.extrapolated | sort) == ["nnodes", "nprocs"]' body >/dev/null ||
	fail "expected extrapolated [nnodes, nprocs] at 2 nodes x 2 ranks, got $(cat body)"
awk -v a="$(jq .runtime_s body)" -v b="$y4" 'BEGIN { d = a - b; exit !(d * d <= 1e-10 * b * b) }' ||
	fail "expected the daemon's answer at 2 x 2 to be the CLI's $y4, got $(cat body)"
stop_daemon
