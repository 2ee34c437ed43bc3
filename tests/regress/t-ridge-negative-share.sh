#!/usr/bin/env bash
# Ridge is refused when one of its terms takes time away (issue 40: no
# model keeps terms that cancel). data/minife-ridge-*.csv: the development
# set's draw D11 (2026-12-01) of miniFE, four repeats of six sizes (nz 20
# to 80 at nx = ny = 20, 1 rank; columns constant over them dropped) and
# the next two sizes' four repeats (nz 120, 160). Ridge wins the
# cross-validation with the matrix rows at +98.5 % of the run time and a
# CG loop's count at -40.2 %: the loop's iterations stop growing past the
# range, the correction fails there, and the held runs were answered
# 19 % off. Asserted: NNLS kept (ridge_cancels), no negative share, the
# held runs within 8 % from parameters (4.6 % when written) and inside
# their interval.
set -u
fail() { echo "$*"; exit 1; }
D=$MPP_SRC/tests/regress/data
. "$MPP_SRC/tests/regress/lib.sh"
mpipredict-train --db m.db --json "$D/minife-ridge-train.csv" >m.json 2>err ||
	fail "train exited $?: $(cat err)"
jq -e '.models[0] | .fit == "nnls" and .ridge_cancels and ([.terms[].share_pct] | all(. > 0))' m.json >/dev/null ||
	fail "expected NNLS over a ridge fit with a negative share, got $(jq -c '.models[0] | {fit, ridge_cancels, shares: [.terms[].share_pct]}' m.json)"
held_check m.db miniFE "$D/minife-ridge-held.csv" 8 || exit 1
exit 0
