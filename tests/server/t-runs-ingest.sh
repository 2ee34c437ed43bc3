#!/usr/bin/env bash
# POST /v1/runs stores run rows only with the token from --token-file;
# a second post of the same runs is refused whole (400 naming the run),
# as is a body with one malformed row; nothing is half-written.
. "$MPP_SRC/tests/server/lib.sh"

"$MPP_BUILD/tests/regress/gen-runs" --runs 5 --features 10 --seed 1 >runs.csv ||
	fail "expected gen-runs to work"
printf '  s3cr3t-t0ken  \n' >token
start_daemon --token-file token

st=$(req POST /v1/runs "$(cat runs.csv)" -H 'Content-Type: text/csv')
expect_status 401 "$st" "no token"
st=$(req POST /v1/runs "$(cat runs.csv)" -H 'Authorization: Bearer s3cr3t-t0ke')
expect_status 403 "$st" "wrong token"
[ "$(rows runs)" = 0 ] || fail "expected no runs after refused posts, got $(rows runs)"

st=$(req POST /v1/runs "$(cat runs.csv)" -H 'Authorization: Bearer s3cr3t-t0ken')
expect_status 200 "$st" "with the token"
[ "$(jq .runs body)" = 5 ] || fail "expected {\"runs\":5}, got $(cat body)"
[ "$(rows runs)" = 5 ] || fail "expected 5 runs stored, got $(rows runs)"
values=$(rows run_values)
[ "$values" -gt 0 ] || fail "expected feature values stored"

# The same body again (a retry after a lost answer): done already, 200,
# nothing written twice.
st=$(req POST /v1/runs "$(cat runs.csv)" -H 'Authorization: Bearer s3cr3t-t0ken')
expect_status 200 "$st" "the same runs again"
[ "$(rows runs)" = 5 ] && [ "$(rows run_values)" = "$values" ] ||
	fail "expected the retried body to add nothing, got $(rows runs) runs"
# A stored run_id with another value: refused, naming it.
awk -F, 'BEGIN { OFS = "," } NR == 2 { $8 = $8 + 1 } { print }' runs.csv >changed.csv
st=$(req POST /v1/runs "$(cat changed.csv)" -H 'Authorization: Bearer s3cr3t-t0ken')
expect_status 400 "$st" "a stored run with another runtime_s"
jq -r .error body | grep -q "r1.*other values" || fail "expected the error to name run r1, got $(cat body)"
# ... or another feature value.
awk -F, 'BEGIN { OFS = "," } NR == 3 { $NF = $NF + 1 } { print }' runs.csv >changed.csv
st=$(req POST /v1/runs "$(cat changed.csv)" -H 'Authorization: Bearer s3cr3t-t0ken')
expect_status 400 "$st" "a stored run with another feature value"
jq -r .error body | grep -q "r2.*other values" || fail "expected the error to name run r2, got $(cat body)"

# A new run plus a row with too few fields: refused whole.
{ head -n 1 runs.csv; sed -n 2p runs.csv | sed 's/^r1,/r99,/'; echo 'r100,stencil'; } >mixed.csv
st=$(req POST /v1/runs "$(cat mixed.csv)" -H 'Authorization: Bearer s3cr3t-t0ken')
expect_status 400 "$st" "a malformed row"
[ "$(rows runs)" = 5 ] && [ "$(rows run_values)" = "$values" ] ||
	fail "expected nothing written for refused bodies, got $(rows runs) runs"
stop_daemon

# Without --token-file, writes are refused even with a token.
start_daemon
st=$(req POST /v1/runs "$(cat runs.csv)" -H 'Authorization: Bearer s3cr3t-t0ken')
expect_status 403 "$st" "no token configured"
stop_daemon
! grep -q 'POST /v1/runs' daemon.log || fail "expected no request lines at the default level, got $(grep -m1 'POST /v1/runs' daemon.log)"
echo "runs ingested once, with the token only"
