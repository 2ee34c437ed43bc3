#!/usr/bin/env bash
# The derived feature model:comm_s (regress/comm_feature.h). The store holds
# a machine profile (cmp and net levels; socket missing); 60 synthetic runs
# of 2..16 ranks on 1..4 nodes have per-level traffic columns and
# runtime_s = 2 + 40 x the LogGPS time of loggps.h worked out here in awk
# (contention h and C grow with ranks per node, collectives pay
# ceil(log2 nprocs) latencies: not a linear function of the raw columns).
# Training must select model:comm_s, must not select time:in_mpi (equal to
# runtime_s, an outcome), and mpipredict-predict must derive the same column
# for 20 held-out rows (within 1 %). Without a profile the column is absent.
set -u
fail=0
o=1e-6 Os=1e-9 Or=2e-9 g=3e-7 L=4e-6 G=5e-10
profile=$(cat <<JSON
{"machine": "m", "created_at": "2026-11-24T03:00:00Z", "nodes_seen": 2,
 "packages_per_node": 1, "cores_per_node": 8,
 "levels": {
  "cmp": {"o": $o, "Os": $Os, "Or": $Or, "g": $g, "L": 1e-6, "G": 1e-10,
          "h": [1e-7, 2e-7, 4e-7, 8e-7, 1.6e-6, 3.2e-6, 6.4e-6, 1.28e-5],
          "C": [1e-11, 2e-11, 4e-11, 8e-11, 1.6e-10, 3.2e-10, 6.4e-10, 1.28e-9],
          "residual": {"o": 0, "Os": 0, "Or": 0, "g": 0, "L": 0, "G": 0, "h": 0, "C": 0}, "samples": 1},
  "socket": null,
  "net": {"o": $o, "Os": $Os, "Or": $Or, "g": $g, "L": $L, "G": $G,
          "h": [2e-7, 4e-7, 8e-7, 1.6e-6, 3.2e-6, 6.4e-6, 1.28e-5, 2.56e-5],
          "C": [2e-11, 4e-11, 8e-11, 1.6e-10, 3.2e-10, 6.4e-10, 1.28e-9, 2.56e-9],
          "residual": {"o": 0, "Os": 0, "Or": 0, "g": 0, "L": 0, "G": 0, "h": 0, "C": 0}, "samples": 1}},
 "missing": {"socket": "one package"}}
JSON
)
awk -v o=$o -v Os=$Os -v Or=$Or -v L=$L -v G=$G 'BEGIN {
	srand(7)
	split("1e-7 2e-7 4e-7 8e-7 1.6e-6 3.2e-6 6.4e-6 1.28e-5", hc, " ")
	split("1e-11 2e-11 4e-11 8e-11 1.6e-10 3.2e-10 6.4e-10 1.28e-9", cc, " ")
	split("2e-7 4e-7 8e-7 1.6e-6 3.2e-6 6.4e-6 1.28e-5 2.56e-5", hn, " ")
	split("2e-11 4e-11 8e-11 1.6e-10 3.2e-10 6.4e-10 1.28e-9 2.56e-9", cn, " ")
	split("2 4 8 16", P, " "); split("1 2 4", N, " ")
	printf "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args"
	split("cmp socket net", lv, " ")
	for (l = 1; l <= 3; l++)
		printf ",comm:%s:msgs.mean,comm:%s:bytes.mean,coll:%s:msgs.mean,coll:%s:bytes.mean", lv[l], lv[l], lv[l], lv[l]
	printf ",noise.mean,time:in_mpi.mean\n"
	for (i = 0; i < 80; i++) {
		p = P[1 + int(rand() * 4)]; n = N[1 + int(rand() * 3)]; if (n > p) n = p
		rpn = p / n; oth = rpn - 1; rounds = log(p) / log(2)
		pm = int(1000 + rand() * 100000); pb = int(pm * (8 + rand() * 4000))
		nm = n > 1 ? int(1000 + rand() * 50000) : 0; nb = int(nm * (8 + rand() * 8000))
		cm = int(10 + rand() * 1000); cb = int(cm * 16)
		k = oth > 8 ? 8 : oth # past the measured cores: the last entry
		hcm = k ? hc[k] : 0; ccm = k ? cc[k] : 0
		hnt = k ? hn[k] : 0; cnt = k ? cn[k] : 0
		# collectives at the widest level: net when the run spans nodes
		ccmp = n > 1 ? 0 : cm; cnet = n > 1 ? cm : 0
		bcmp = n > 1 ? 0 : cb; bnet = n > 1 ? cb : 0
		t = (pm / 2 + ccmp * rounds) * (2 * o + 2 * hcm + 1e-6) + (pb / 2 + bcmp / 2) * (Os + Or + 1e-10 + ccm)
		t += (nm / 2 + cnet * rounds) * (2 * o + 2 * hnt + L) + (nb / 2 + bnet / 2) * (Os + Or + G + cnt)
		rt = 2 + 40 * t
		printf "r%d,ring,b1,2026-11-24T00:00:00Z,,%d,%d,%.9g,--size %d", i, p, n, rt, i
		printf ",%d,%d,%d,%d,0,0,0,0,%d,%d,%d,%d,%.6g,%.9g\n", pm, pb, ccmp, bcmp, nm, nb, cnet, bnet, rand() * 1000, rt * 1e9
	}
}' >all.csv
head -n 61 all.csv >train.csv
{ head -n 1 all.csv; tail -n 20 all.csv; } >held.csv

# Without a profile: no model:comm_s column.
mpipredict-train --db plain.db --json train.csv >plain.json 2>err.txt ||
	{ echo "expected training without a profile to succeed, got: $(cat err.txt)"; exit 1; }
jq -e '[.models[0].terms[].feature] | index("model:comm_s") | not' plain.json >/dev/null ||
	{ echo "expected no model:comm_s without a profile, got $(jq -c '[.models[0].terms[].feature]' plain.json)"; fail=1; }

mpipredict-train --db m.db train.csv >/dev/null 2>err.txt || { echo "first training failed: $(cat err.txt)"; exit 1; }
sqlite3 m.db "INSERT INTO machine_profiles (machine, created_at, profile) VALUES ('m', '2026-11-24T03:00:00Z', '$profile')"
mpipredict-train --db m.db --json train.csv >out.json 2>err.txt ||
	{ echo "expected training to succeed, got: $(cat err.txt)"; exit 1; }
jq -e '[.models[0].terms[] | .feature, (.aliases // [])[]] | index("model:comm_s")' out.json >/dev/null ||
	{ echo "expected model:comm_s among the terms, got $(jq -c '[.models[0].terms[].feature]' out.json)"; fail=1; }
jq -e '[.models[0].terms[] | .feature, (.aliases // [])[]] | index("time:in_mpi.mean") | not' out.json >/dev/null ||
	{ echo "expected time:in_mpi.mean never selected, got $(jq -c '[.models[0].terms[].feature]' out.json)"; fail=1; }
mpipredict-predict --csv --db m.db --app ring --features held.csv >pred.csv 2>err.txt ||
	{ echo "expected predict to succeed, got: $(cat err.txt)"; exit 1; }
tail -n 20 held.csv | cut -d, -f8 >actual.txt
paste -d, pred.csv actual.txt | awk -F, '
	{ e = ($2 - $5) / $5; if (e < 0) e = -e; if (e > m) m = e }
	END { if (NR != 20 || m > 0.01) { printf "expected 20 predictions within 1 %%, got %d, max error %.2f %%\n", NR, 100 * m; exit 1 } }' ||
	fail=1
exit $fail
