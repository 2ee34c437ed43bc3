#!/usr/bin/env bash
# mpipredictd --config FILE: the file's settings apply (log-level info logs
# each request, max-features refuses a request with more), a flag wins over
# the file, each mistake in the file names the file and line and exits 1
# before anything starts, --config none reads none, the default file
# (MPIPREDICT_DAEMON_CONF here, /etc/mpipredict/mpipredictd.conf in
# production) is read when it exists, and the shipped example
# (contrib/mpipredictd.conf) starts the daemon, its commented keys too.
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" heat 1 'a=1' 'b=1' >/dev/null || fail "expected mkmodel to work"
three='{"app":"heat","features":{"a":1,"b":2,"c":3}}'

cat >daemon.conf <<'EOF'
# a comment
[mpipredictd]
log-level = info
max-features = 2 ; an inline comment
EOF
start_daemon --config daemon.conf
st=$(req POST /v1/predict "$three")
expect_status 400 "$st" "3 features with max-features = 2 in the file"
grep -q 'features: more than the limit of 2' body || fail "expected the limit of 2 named, got $(cat body)"
st=$(req POST /v1/predict '{"app":"heat","features":{"a":1,"b":2}}')
expect_status 200 "$st" "2 features with max-features = 2 in the file"
stop_daemon
grep -q ' info POST /v1/predict 400 ' daemon.log || fail "expected a request line at log-level = info from the file"
grep -q "notice mpipredictd .*, config daemon.conf\$" daemon.log || fail "expected the start line to name the file read"

# A flag wins over the file.
: >daemon.log
start_daemon --config daemon.conf --max-features 3 --log-level warn
st=$(req POST /v1/predict "$three")
expect_status 200 "$st" "3 features with --max-features 3 over the file's 2"
stop_daemon
grep -q ' info ' daemon.log && fail "expected no info line with --log-level warn over the file's info"

# Mistakes: FILE:LINE, exit 1, one line, before the store is opened.
check() { # WANT-IN-STDERR CONF-TEXT
	printf '%s\n' "$2" >bad.conf
	rm -f "$DB-probe"
	timeout 10 mpipredictd --config bad.conf --db "$DB-probe" --listen 127.0.0.1:0 2>err >/dev/null
	local rc=$?
	[ "$rc" = 1 ] || fail "config '$2': expected exit 1, got $rc ($(cat err))"
	grep -qF -- "$1" err || fail "config '$2': expected '$1', got '$(cat err)'"
	[ "$(wc -l <err)" = 1 ] || fail "config '$2': expected one line on stderr, got $(cat err)"
	[ -e "$DB-probe" ] && fail "config '$2': expected no store created"
	return 0
}
check "bad.conf:3: unknown key 'thread' (the keys are the long options of mpipredictd --help)" \
	$'[mpipredictd]\nthreads = 2\nthread = 3'
check "bad.conf:2: threads: expected a number from 1 to 256, got '0'" $'[mpipredictd]\nthreads = 0'
check "bad.conf:3: retrain-margin: expected percentage points from 0 to 100" \
	$'[mpipredictd]\n\nretrain-margin = 150'
check "bad.conf:2: log-level: expected error, warn, notice, info or debug, got 'loud'" \
	$'[mpipredictd]\nlog-level = loud'
check "bad.conf:3: unknown section [mpipredict] (the settings go in [mpipredictd])" \
	$'# typo\n[mpipredict]\nthreads = 2'
check "bad.conf:1: key 'threads' before the [mpipredictd] line" $'threads = 2\n[mpipredictd]'
check "bad.conf:3: key 'threads' set twice (first on line 2)" $'[mpipredictd]\nthreads = 2\nthreads = 3'
check "bad.conf:3: an indented line (it would continue the value of 'listen')" \
	$'[mpipredictd]\nlisten = 127.0.0.1:0\n  8470'
check "bad.conf:2: expected 'key = value', a [section] line or a comment" $'[mpipredictd]\nthreads 2'
check "bad.conf:2: a line longer than 198 characters" "$(printf '[mpipredictd]\ndb = /%0250d' 0)"
check "bad.conf:2: unknown key 'config'" $'[mpipredictd]\nconfig = other.conf'
check "bad.conf:2: ui-users: expected yes or no, got ''" $'[mpipredictd]\nui-users ='
timeout 10 mpipredictd --config missing.conf --db "$DB" 2>err
rc=$?
[ "$rc" = 1 ] && grep -qF 'configuration file missing.conf: No such file or directory' err ||
	fail "--config missing.conf: expected exit 1 naming the file, got $rc: $(cat err)"

# The default file: read when it exists (not an error when missing);
# --config none reads none.
printf '[mpipredictd]\nthreads = 0\n' >default.conf
MPIPREDICT_DAEMON_CONF=$PWD/default.conf timeout 10 mpipredictd --db "$DB" 2>err
rc=$?
[ "$rc" = 1 ] && grep -qF "default.conf:2: threads" err ||
	fail "expected the default file read (exit 1 on its line 2), got $rc: $(cat err)"
: >daemon.log
MPIPREDICT_DAEMON_CONF=$PWD/default.conf start_daemon --config none
stop_daemon
grep -q ', config none$' daemon.log || fail "expected 'config none' in the start line with --config none"
: >daemon.log
MPIPREDICT_DAEMON_CONF=$PWD/no-such.conf start_daemon
stop_daemon
grep -q ', config none$' daemon.log || fail "expected a missing default file to be no file"

# The example shipped for /etc: starts as it is (its paths overridden),
# and so with every commented key uncommented.
echo t0ken >token
chmod 0640 token
example=$MPP_SRC/contrib/mpipredictd.conf
: >daemon.log
start_daemon --config "$example" --token-file token
st=$(req GET /healthz)
expect_status 200 "$st" "the daemon started with the example configuration"
stop_daemon
grep -qF ", config $example" daemon.log || fail "expected the start line to name $example"
sed -E 's/^# ([a-z-]+ = )/\1/' "$example" >all.conf
n=$(grep -cE '^[a-z-]+ = ' all.conf)
[ "$n" -ge 20 ] || fail "expected 20 or more keys in the example uncommented, got $n"
: >daemon.log
start_daemon --config all.conf --token-file token --threads 2 \
	--retrain-trainer "$MPP_BUILD/bin/mpipredict-train"
st=$(req GET /healthz)
expect_status 200 "$st" "the daemon started with all the example's keys"
stop_daemon
echo "configuration file applied, overridden by flags, 13 mistakes named by line, example valid ($n keys)"
