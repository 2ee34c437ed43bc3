#!/usr/bin/env bash
# mpipredict-replay --pred auto chooses the history predictor and corrector
# from the trace (history/choose.h): on a synthetic trace where ours
# predicts every job exactly and Tsafrir's mean of the last two mixes long
# and short jobs, ours is the challenger and replaces the champion
# (tsafrir/steps); a margin larger than its gain keeps the champion, as
# does a trace where every candidate schedules alike.
set -u
fail() { echo "$*"; exit 1; }
awk -v n=600 -v users=12 -f "$MPP_SRC/tests/history/choose-trace.awk" >t.swf

mpipredict-replay --procs 64 --pred auto t.swf >out 2>err || fail "expected exit 0, got $?: $(cat err)"
[ "$(grep -c '^candidate ' out)" = 8 ] || fail "expected 8 candidate lines, got: $(cat out)"
choice=$(awk '/^choice /{print $2}' out)
case $choice in
ours/*) ;;
*) fail "expected ours chosen, got '$choice': $(cat out)" ;;
esac
grep -q "^choice ours/.* champion=tsafrir/steps old=300 new=300" out ||
	fail "expected the choice against the champion tsafrir/steps on 300 + 300 jobs, got: $(grep choice out)"
# Then the choice is replayed with EASY++: its line is the last.
tail -n 1 out | grep -q "^easy++ $choice jobs=600 " || fail "expected the replay of $choice last, got: $(tail -n 1 out)"
# Ours' scores on the newest part: exact predictions, lower AVEbsld.
ours=$(awk '$1 == "candidate" && $2 == "ours/steps" {sub("avebsld_new=", "", $4); sub("mae_new_s=", "", $6); print $4, $6}' out)
tsa=$(awk '$1 == "candidate" && $2 == "tsafrir/steps" {sub("avebsld_new=", "", $4); print $4}' out)
awk -v o="${ours% *}" -v m="${ours#* }" -v t="$tsa" 'BEGIN { exit !(o < 0.95 * t && m == 0) }' ||
	fail "expected ours' AVEbsld below 95 % of Tsafrir's and its MAE 0, got ours '$ours', tsafrir '$tsa'"

# The margin keeps the champion when the gain is smaller.
mpipredict-replay --procs 64 --pred auto --margin 90 t.swf >out90 || fail "--margin 90: exit $?"
grep -q "^choice tsafrir/steps challenger=ours/steps champion=tsafrir/steps" out90 ||
	fail "--margin 90: expected the champion kept against ours, got: $(grep choice out90)"

# A light load (every job starts at once): all candidates schedule alike,
# no candidate beats the champion.
awk -v n=200 -v users=12 -v gap=200000 -f "$MPP_SRC/tests/history/choose-trace.awk" >light.swf
mpipredict-replay --procs 64 --pred auto light.swf >outl || fail "light: exit $?"
grep -q "^choice tsafrir/steps " outl || fail "light load: expected tsafrir/steps kept, got: $(grep choice outl)"

# --json: the choice in the object.
mpipredict-replay --procs 64 --pred auto --json t.swf >j || fail "--json: exit $?"
[ "$(jq -r '.auto.chosen + " " + (.auto.candidates | length | tostring) + " " + .scheduler' j)" = "$choice 8 easy++" ] ||
	fail "--json: expected auto.chosen $choice, 8 candidates, easy++, got $(cat j)"

# Usage errors.
mpipredict-replay --pred auto --margin 200 t.swf 2>e
[ $? = 1 ] && grep -q -- "--margin" e || fail "expected --margin 200 refused (exit 1), got: $(cat e)"
head -n 2 t.swf >tiny.swf
mpipredict-replay --procs 64 --pred auto tiny.swf 2>e
[ $? = 2 ] && grep -q "too few" e || fail "expected 2 jobs refused (exit 2, too few), got: $(cat e)"
exit 0
