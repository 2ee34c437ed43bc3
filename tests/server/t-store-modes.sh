#!/usr/bin/env bash
# The store holds user names, uids and job ids: the daemon creates it, and
# SQLite its -wal and -shm, without any permission for other users even
# under a umask of 000; an existing store or a token file open to other
# users is started with, with a warning naming the file and the chmod to
# run; a group-readable token file (users' jobs read it through their
# group) is not warned about.
. "$MPP_SRC/tests/server/lib.sh"

mode() { stat -c %a "$1"; }
private() { # FILE: no bit for others, no write or execute for the group
	[ -e "$1" ] || fail "expected $1 to exist"
	[ $((8#$(mode "$1") & 8#037)) = 0 ] || fail "expected $1 at 0640 or stricter, got $(mode "$1")"
}

umask 000
echo t0ken >token
chmod 0640 token
start_daemon --token-file token --audit-interval 10
private "$DB"
# A write (ingested rows, then an audit record) makes the -wal and -shm.
"$MPP_BUILD/tests/regress/gen-runs" --runs 3 --features 10 --seed 1 >rows.csv ||
	fail "expected gen-runs to work"
st=$(req POST /v1/runs "$(cat rows.csv)" -H 'Authorization: Bearer t0ken')
expect_status 200 "$st" "POST /v1/runs"
"$HELPERS/mkmodel" "$DB" heat 1 'a=1' >/dev/null || fail "expected mkmodel to work"
for _ in $(seq 100); do
	st=$(req POST /v1/predict '{"app":"heat","features":{"a":1}}')
	[ "$st" = 200 ] && break
	sleep 0.05
done
expect_status 200 "$st" "a prediction once the model is loaded"
for _ in $(seq 100); do [ "$(rows predictions)" -gt 0 ] && break; sleep 0.05; done
private "$DB-wal"
private "$DB-shm"
modes="$(mode "$DB"), $(mode "$DB-wal"), $(mode "$DB-shm")"
stop_daemon
grep -q 'open to other users\|readable by every' daemon.log &&
	fail "expected no warning for a private store and a 0640 token, got $(grep -m1 'open to other\|readable by every' daemon.log)"

# A store made by someone else with a loose umask, and a token every user
# can read: warned about (the daemon still starts; the admin fixes it).
chmod 0644 "$DB"
chmod 0644 token
: >daemon.log
start_daemon --token-file token
stop_daemon
grep -qF "store file $DB is open to other users (mode 0644): any local user can read its user names and job ids; run: chmod o-rwx $DB" daemon.log ||
	fail "expected a warning naming the store and the chmod, got $(head -3 daemon.log)"
grep -qF "token file token is readable by every local user (mode 0644), so any of them can add rows to the store; run: chmod o-rwx token" daemon.log ||
	fail "expected a warning naming the token file and the chmod, got $(head -3 daemon.log)"
echo "store, -wal and -shm created $modes under umask 000; loose modes warned about"
