#!/usr/bin/env bash
# POST /v1/progress stores a running job's latest counters (token, text
# rule, one row per job in the progress table) and GET /v1/jobs/{job_id}
# answers from the app's hand-written model: progress from the model's
# progress counter when it has one and the post carries it, else from the
# counters done over those the model expects for the job's parameters, the time
# left as the model's cost of the rest, or, without such counters, the
# elapsed time's share of the prediction; remaining = predicted_total -
# elapsed, never below 0; outlives_limit against the posted limit. An
# unknown job is a 404, a bad id a 400; the staff page lists the jobs
# with a bar; a restarted daemon still knows the jobs from the store.
. "$MPP_SRC/tests/server/lib.sh"

# runtime = 2 + 0.5 * loop; loop from parameters: exp(log 10 + log nprocs)
# = 10 * nprocs: at 4 ranks 40 iterations and 22 s, interval x0.5 / x2.
"$HELPERS/mkmodel" "$DB" jac 2 'loop:a.c:1:1.mean=0.5@2.302585092994046@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
# The same with a progress counter (the main loop: 100 * nprocs counts,
# 400 at 4 ranks) beside the kept term (a set-up loop).
"$HELPERS/mkmodel" "$DB" jacp 2 'loop:a.c:1:1.mean=0.5@2.302585092994046@nprocs^1' \
	'progress:loop:a.c:9:1.mean=0@4.605170185988092@nprocs^1' >/dev/null ||
	fail "expected mkmodel to store a progress counter"
printf 's3cr3t\n' >token
start_daemon --token-file token
auth=(-H 'Authorization: Bearer s3cr3t')

post() { req POST /v1/progress "$1" "${auth[@]}"; }

st=$(post '{"job_id":"77","run_id":"r1","app":"jac","build_id":"b1","args":"","nprocs":4,"nnodes":1,"elapsed_s":5,"time_limit_s":20,"features":{"loop:a.c:1:1.mean":10,"loop:a.c:1:1.max":10}}')
expect_status 200 "$st" "progress post"
[ "$(jq .stored body)" = 1 ] || fail "expected {\"stored\":1}, got $(cat body)"
[ "$(sqlite3 "$DB" "SELECT job_id, app, nprocs, elapsed_s, time_limit_s FROM progress")" = "77|jac|4|5.0|20.0" ] ||
	fail "expected the progress row stored, got $(sqlite3 "$DB" 'SELECT * FROM progress')"

# check_job ID: the answer's fields agree with one another.
check_job() {
	st=$(req GET "/v1/jobs/$1")
	expect_status 200 "$st" "GET /v1/jobs/$1"
	jq -e '(.remaining_s >= 0) and (.progress >= 0) and (.progress <= 1)
		and (.lower_s <= .remaining_s) and (.remaining_s <= .upper_s)
		and ((.predicted_total_s - .elapsed_s - .remaining_s) | fabs < 1e-6)' body >/dev/null ||
		fail "job $1: expected remaining = predicted_total - elapsed >= 0, progress in [0,1], lower <= remaining <= upper; got $(cat body)"
}

# 10 of the 40 iterations: a quarter done, 0.75 x 22 s left.
check_job 77
close_to "progress" 0.25 "$(jq .progress body)"
close_to "remaining_s" 16.5 "$(jq .remaining_s body)"
close_to "lower_s" 8.25 "$(jq .lower_s body)"
close_to "upper_s" 33 "$(jq .upper_s body)"
[ "$(jq -r '[.progress_basis, .app, .run_id, .outlives_limit, .model.id] | @csv' body)" = '"counters","jac","r1",true,1' ] ||
	fail "expected basis counters, app, run, outlives_limit true (5 + 16.5 > 20), model 1; got $(cat body)"
awk -v e="$(jq .elapsed_s body)" 'BEGIN { exit !(e >= 5 && e < 60) }' ||
	fail "expected elapsed_s from 5 s on (the post's, plus the time since), got $(jq .elapsed_s body)"

# A later post replaces the job's row: 30 of 40, 5.5 s left, within the limit.
st=$(post '{"job_id":"77","run_id":"r1","app":"jac","build_id":"b1","args":"","nprocs":4,"nnodes":1,"elapsed_s":12,"time_limit_s":30,"features":{"loop:a.c:1:1.mean":30}}')
expect_status 200 "$st" "second post"
[ "$(rows progress)" = 1 ] || fail "expected one row per job, got $(rows progress)"
check_job 77
close_to "progress" 0.75 "$(jq .progress body)"
close_to "remaining_s" 5.5 "$(jq .remaining_s body)"
[ "$(jq .outlives_limit body)" = false ] || fail "expected outlives_limit false, got $(cat body)"

# With a progress counter the answer reads it alone (basis counter): 100
# of its 400, a quarter, though the kept set-up loop is all done (40 of
# 40); a post without it falls back on the kept terms.
st=$(post '{"job_id":"77p","app":"jacp","nprocs":4,"nnodes":1,"elapsed_s":5,"features":{"loop:a.c:1:1.mean":40,"loop:a.c:9:1.mean":100}}')
expect_status 200 "$st" "post with a progress counter"
check_job 77p
[ "$(jq -r .progress_basis body)" = counter ] || fail "expected basis counter, got $(cat body)"
close_to "progress (progress counter)" 0.25 "$(jq .progress body)"
close_to "remaining_s (progress counter)" 16.5 "$(jq .remaining_s body)"
# A later post of the same run: the job's own pace since the first post
# that showed the counter (100 at 5 s, 200 at 7 s: 50 a second) says the
# time left, (400 - 200) / 50 = 4 s less the time since the post (basis
# rate), with the prediction's relative interval (x0.5, x2).
st=$(post '{"job_id":"77p","app":"jacp","nprocs":4,"nnodes":1,"elapsed_s":7,"features":{"loop:a.c:1:1.mean":40,"loop:a.c:9:1.mean":200}}')
expect_status 200 "$st" "second post with a progress counter"
check_job 77p
[ "$(jq -r .progress_basis body)" = rate ] || fail "expected basis rate on the second post, got $(cat body)"
close_to "progress (rate)" 0.5 "$(jq .progress body)"
jq -e '(.remaining_s + .reported_s_ago - 4 | fabs) < 1e-3 and (.lower_s / .remaining_s - 0.5 | fabs) < 1e-6 and
	(.upper_s / .remaining_s - 2 | fabs) < 1e-6' body >/dev/null ||
	fail "expected remaining = 4 s less the time since the post, interval x0.5 to x2, got $(cat body)"
st=$(post '{"job_id":"77q","app":"jacp","nprocs":4,"nnodes":1,"elapsed_s":5,"features":{"loop:a.c:1:1.mean":10}}')
expect_status 200 "$st" "post without the progress counter"
check_job 77q
[ "$(jq -r .progress_basis body)" = counters ] || fail "expected basis counters without the progress counter posted, got $(cat body)"
close_to "progress (kept terms)" 0.25 "$(jq .progress body)"

# More done than the model expects while the job still runs: the counters
# say nothing of what is left, the elapsed time does (basis time): past
# the prediction, progress 1 and nothing left; before it (a set-up loop
# done early), the elapsed time's share of 22 s and the rest of it.
st=$(post '{"job_id":"78","app":"jac","nprocs":4,"nnodes":1,"elapsed_s":30,"features":{"loop:a.c:1:1.mean":50}}')
expect_status 200 "$st" "post past the end"
check_job 78
close_to "progress (past the end)" 1 "$(jq .progress body)"
close_to "remaining_s (past the end)" 0 "$(jq .remaining_s body)"
[ "$(jq .outlives_limit body)" = null ] || fail "expected outlives_limit null without a limit, got $(cat body)"
st=$(post '{"job_id":"78b","app":"jac","nprocs":4,"nnodes":1,"elapsed_s":5.5,"features":{"loop:a.c:1:1.mean":40}}')
expect_status 200 "$st" "post with the counters all done early"
check_job 78b
[ "$(jq -r .progress_basis body)" = time ] || fail "expected basis time once the counters are all done, got $(cat body)"
awk -v r="$(jq .remaining_s body)" -v e="$(jq .elapsed_s body)" \
	'BEGIN { d = r - (22 - e); exit !(d < 1e-6 && d > -1e-6 && r > 10) }' ||
	fail "expected remaining = 22 - elapsed (about 16.5 s), not 0, got $(cat body)"

# No counter of the model posted: the elapsed time's share of 22 s.
st=$(post '{"job_id":"79","app":"jac","nprocs":4,"nnodes":1,"elapsed_s":11,"features":{"mpi:MPI_Send:calls.mean":3}}')
expect_status 200 "$st" "post without the model's counters"
check_job 79
[ "$(jq -r .progress_basis body)" = time ] || fail "expected basis time, got $(cat body)"
awk -v p="$(jq .progress body)" -v e="$(jq .elapsed_s body)" \
	'BEGIN { d = p - e / 22; exit !(d < 1e-6 && d > -1e-6) }' ||
	fail "expected progress = elapsed / 22, got $(cat body)"
# Elapsed past the prediction: remaining clipped at 0.
st=$(post '{"job_id":"80","app":"jac","nprocs":4,"nnodes":1,"elapsed_s":100,"time_limit_s":90,"features":{}}')
expect_status 200 "$st" "post past the prediction"
check_job 80
close_to "remaining_s (clipped)" 0 "$(jq .remaining_s body)"
[ "$(jq .outlives_limit body)" = true ] || fail "expected outlives_limit true (100 s > 90 s), got $(cat body)"

# An app without a model: the job is known, with no estimate and why.
st=$(post '{"job_id":"81","app":"other","nprocs":1,"nnodes":1,"elapsed_s":1,"features":{}}')
expect_status 200 "$st" "post for an app without a model"
st=$(req GET /v1/jobs/81)
expect_status 200 "$st" "job of an app without a model"
[ "$(jq -c '[.remaining_s, .progress]' body)" = '[null,null]' ] && jq -r .note body | grep -q 'no active model for app other' ||
	fail "expected null estimates and a note, got $(cat body)"

# Unknown job, bad ids.
st=$(req GET /v1/jobs/999)
expect_status 404 "$st" "unknown job"
jq -r .error body | grep -q '999' || fail "expected the 404 to name the job, got $(cat body)"
st=$(req GET '/v1/jobs/a*b')
expect_status 400 "$st" "bad job id"
jq -r .error body | grep -q '^job_id:' || fail "expected the 400 to name job_id, got $(cat body)"
st=$(req GET /v1/jobs/)
expect_status 400 "$st" "empty job id"
st=$(req POST /v1/jobs/77 '{}')
expect_status 405 "$st" "POST to a job"

# Bad posts: token, fields, the text rule; nothing stored.
n=$(rows progress)
st=$(req POST /v1/progress '{"job_id":"90","app":"jac","nprocs":1,"nnodes":1,"elapsed_s":1,"features":{}}')
expect_status 401 "$st" "post without a token"
st=$(post '{"app":"jac","nprocs":1,"nnodes":1,"elapsed_s":1,"features":{}}')
expect_status 400 "$st" "post without job_id"
jq -r .error body | grep -q '^job_id: missing' || fail "expected 'job_id: missing', got $(cat body)"
st=$(post '{"job_id":"90","app":"j\u0001c","nprocs":1,"nnodes":1,"elapsed_s":1,"features":{}}')
expect_status 400 "$st" "control byte in app"
jq -r .error body | grep -q '^app: contains a control byte' || fail "expected the app's control byte named, got $(cat body)"
st=$(post '{"job_id":"90","app":"jac","nprocs":1,"nnodes":1,"elapsed_s":-1,"features":{}}')
expect_status 400 "$st" "negative elapsed_s"
jq -r .error body | grep -q '^elapsed_s:' || fail "expected elapsed_s named, got $(cat body)"
st=$(post '{"job_id":"90","app":"jac","nprocs":1,"nnodes":1,"elapsed_s":1,"features":{"x":"1"}}')
expect_status 400 "$st" "a feature not a number"
st=$(post 'not json')
expect_status 400 "$st" "not JSON"
[ "$(rows progress)" = "$n" ] || fail "expected nothing stored by refused posts"

# The staff page lists the running jobs, each with its bar: job 77 is at
# 75 % (a bar 120 of 160 wide), job 78 at 100 %.
curl -s "$URL/" >page.html
grep -q '<h2>Running jobs</h2>' page.html || fail "expected a Running jobs section on /"
row=$(grep -o '<tr><td>77</td><td>jac</td><td><svg[^>]*><rect[^>]*/><rect class="bar" width="[0-9.]*"' page.html)
[ "${row##*width=}" = '"120.0"' ] || fail "expected job 77's bar 120 of 160 wide, got '${row:-no row}'"
grep -q '<tr><td>78</td><td>jac</td>.*100 %' page.html || fail "expected job 78 at 100 % on the page"

# A restarted daemon knows the jobs from the store.
stop_daemon
start_daemon --token-file token
check_job 77
close_to "progress after a restart" 0.75 "$(jq .progress body)"
stop_daemon
echo "progress posts are stored; GET /v1/jobs answers progress and time left consistently"
