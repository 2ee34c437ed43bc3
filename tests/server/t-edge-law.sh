#!/usr/bin/env bash
# Issue 40: the daemon answers past the range with the model's edge laws,
# as the CLI does, and shows them. On the measured miniFE rows of
# tests/regress/data (see tests/regress/t-edge-law-cap.sh: its solver
# loop's count bends at the iteration cap):
#   - POST /v1/predict for nz = 160 (past the range) answers
#     mpipredict-predict's runtime_s, within 10 % of the held runs'
#     median (their law alone answers 36 % over);
#   - GET /v1/models/miniFE shows the term's past_range for nz.
. "$MPP_SRC/tests/server/lib.sh"
D=$MPP_SRC/tests/regress/data

mpipredict-train --db "$DB" "$D/minife-cap-train.csv" >/dev/null 2>err.txt || fail "training: $(cat err.txt)"
y=$(mpipredict-predict --csv --db "$DB" --app miniFE --args "nx=20 ny=20 nz=160" --ntasks 1 2>/dev/null | tail -n 1 | cut -d, -f2)
[ -n "$y" ] || fail "expected the CLI to answer from parameters"
med=$(awk -F, 'NR > 1 && $9 ~ /nz=160/ { print $8 }' "$D/minife-cap-held.csv" | sort -g | sed -n 2p)

start_daemon
st=$(req POST /v1/predict '{"app":"miniFE","ntasks":1,"args":"nx=20 ny=20 nz=160"}')
expect_status 200 "$st" "parameters past the range"
got=$(jq .runtime_s body)
echo "nz = 160: daemon $got s, CLI $y s, held runs' median $med s"
awk -v a="$y" -v b="$got" 'BEGIN { d = (a - b) / b; exit !(d < 1e-5 && d > -1e-5) }' ||
	fail "expected the CLI's $y s, got $(cat body)"
awk -v a="$got" -v b="$med" 'BEGIN { d = (a - b) / b; exit !(d < 0.1 && d > -0.1) }' ||
	fail "expected within 10 % of the held runs' median $med s, got $got"
st=$(req GET /v1/models/miniFE)
expect_status 200 "$st" "models"
jq -e '[.. | objects | select(has("past_range")) | .past_range[] | select(.group == "nz")] | length == 1' body >/dev/null ||
	fail "expected one edge law for nz in GET /v1/models/miniFE, got $(jq -c '[.. | objects | select(has("past_range")) | .past_range]' body)"
stop_daemon
echo ok
