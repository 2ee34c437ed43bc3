#!/usr/bin/env bash
# A JSON string with a lone UTF-16 surrogate escape is refused with a 400
# naming the field, and nothing is audited (issue 36: yajl decoded
# "\ud800\u0041" as U+10041 and a high surrogate before anything else as
# '?', and the daemon stored that). A proper pair, and an escaped
# backslash before "ud800", are accepted.
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
start_daemon --audit-interval 10

# body (JSON text, as sent) | the error must start with
while IFS='|' read -r data mention; do
	[ -z "$data" ] && continue
	st=$(req POST /v1/predict "$data")
	expect_status 400 "$st" "$data"
	err=$(jq -r .error body)
	case "$err" in "$mention"*"lone UTF-16 surrogate"*) ;; *)
		fail "$data: expected an error '$mention... lone UTF-16 surrogate...', got '$err'" ;;
	esac
done <<'TABLE'
{"app":"heat","ntasks":4,"user":"\ud800\u0041"}|user: 
{"app":"heat","ntasks":4,"user":"x\ud800"}|user: 
{"app":"heat","ntasks":4,"user":"\uDC00x"}|user: 
{"app":"heat","ntasks":4,"job_id":"\\\ud800"}|job_id: 
{"app":"\udbff","ntasks":4}|app: 
{"app":"heat","args":["-n","\ud800\ud800"]}|args[1]: 
{"app":"heat","features":{"a\ud800b":1}}|features: a name: 
{"app":"heat","ntasks":4,"other":"\ud800"}|body: 
TABLE
sleep 0.2
[ "$(rows predictions)" = 0 ] || fail "expected nothing audited from the refused bodies, got $(rows predictions) rows"

# A pair (U+1F600) and an escaped backslash followed by "ud800": fine.
st=$(req POST /v1/predict '{"app":"heat","ntasks":4,"user":"\ud83d\ude00","job_id":"\\ud800"}')
expect_status 200 "$st" "a surrogate pair and an escaped backslash"
for _ in $(seq 100); do [ "$(rows predictions)" = 1 ] && break; sleep 0.05; done
got=$(sqlite3 "$DB" "SELECT hex(user) || ' ' || job_id FROM predictions")
[ "$got" = 'F09F9880 \ud800' ] ||
	fail "expected the pair stored as U+1F600 (F09F9880) and the job id as the 6 characters \\ud800, got '$got'"
stop_daemon
echo "lone surrogates refused, pairs kept"
