#!/usr/bin/env bash
# docs/cli.md, checked on every program of $MPP_BUILD/bin: -h and --help
# print a usage on stdout and exit 0; --version prints "NAME VERSION"; an
# unknown option exits 1 with one line ending in "(see --help)"; the
# commands that only read a store refuse a missing one with exit 2 and do
# not create it, and take it from $MPIPREDICT_DB; calibrate and simulate
# with no arguments print their usage and exit 1; each manual page that
# `make man` generates renders. The compiler wrappers leave -h, --help and
# --version to the compiler: theirs are --mpipredict-help and
# --mpipredict-version.
failed=0
fail() { echo "FAIL: $*"; failed=1; }

version=$(sed -n 's/^MPP_VERSION := //p' "$MPP_SRC/Makefile")
[ -n "$version" ] || { echo "cannot read MPP_VERSION from the Makefile"; exit 1; }
progs=$(cd "$MPP_BUILD/bin" && ls)
[ -n "$progs" ] || { echo "no programs in $MPP_BUILD/bin"; exit 1; }
wrapper() { case $1 in mpipredict-cc | mpipredict-mpicc | mpipredict-mpicxx) return 0 ;; esac; return 1; }

for p in $progs; do
	if wrapper "$p"; then
		helps=--mpipredict-help vers=--mpipredict-version
	else
		helps="-h --help" vers=--version
	fi
	for h in $helps; do
		"$p" $h >out.txt 2>err.txt
		rc=$?
		[ $rc = 0 ] && grep -qi usage out.txt ||
			fail "$p $h: expected exit 0 and a usage on stdout, got $rc: $(head -c 200 out.txt; head -c 200 err.txt)"
	done
	got=$("$p" $vers 2>&1)
	[ "$got" = "$p $version" ] || fail "$p $vers: expected '$p $version', got '$got'"
	wrapper "$p" && continue # any other option is the compiler's
	"$p" --no-such-option >out.txt 2>err.txt
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q '(see --help)$' err.txt ||
		fail "$p --no-such-option: expected exit 1 and one line ending in '(see --help)', got $rc: $(cat err.txt)"
done

# Run with no arguments, a command whose work is long or writes a store
# prints its usage and exits 1, leaving nothing behind.
for p in mpipredict-calibrate mpipredict-simulate; do
	"$p" >out.txt 2>err.txt
	rc=$?
	[ $rc = 1 ] && grep -qi usage err.txt || fail "$p with no arguments: expected exit 1 and the usage, got $rc"
	[ -z "$(ls | grep -v -e out.txt -e err.txt)" ] || fail "$p with no arguments left $(ls)"
done
"$MPP_BUILD/bin/mpipredict-cc" >/dev/null 2>err.txt
[ $? = 1 ] && grep -q '(see --help)$' err.txt || fail "mpipredict-cc with no arguments: expected exit 1, got $(cat err.txt)"

# Read-only commands on a missing store: exit 2, one line naming the file
# and how to make one; no file made. First ./models.db (the default), then
# $MPIPREDICT_DB, which --db overrides.
readonly_cmds=(
	"mpipredict-accuracy"
	"mpipredict-model list"
	"mpipredict-calibrate --show"
)
# mpipredict-predict follows the convention once its --help says so
# (docs/cli.md).
mpipredict-predict --help | grep -q MPIPREDICT_DB && readonly_cmds+=("mpipredict-predict --app x --args 1 --ntasks 2")
for cmd in "${readonly_cmds[@]}"; do
	unset MPIPREDICT_DB
	$cmd >out.txt 2>err.txt
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q 'models.db: no store here (make one with' err.txt ||
		fail "$cmd without a store: expected exit 2 naming ./models.db and how to make one, got $rc: $(cat err.txt)"
	[ ! -e models.db ] || { fail "$cmd created ./models.db"; rm -f models.db; }
	MPIPREDICT_DB=env.db $cmd >out.txt 2>err.txt
	rc=$?
	[ $rc = 2 ] && grep -q '^[^ ]*: env.db: no store here' err.txt ||
		fail "$cmd with MPIPREDICT_DB=env.db: expected exit 2 naming env.db, got $rc: $(cat err.txt)"
	MPIPREDICT_DB=env.db $cmd --db opt.db >out.txt 2>err.txt
	grep -q 'opt.db: no store here' err.txt || fail "$cmd --db opt.db: expected --db over MPIPREDICT_DB, got $(cat err.txt)"
	[ ! -e env.db ] && [ ! -e opt.db ] || { fail "$cmd created a store"; rm -f env.db opt.db; }
done

# MPIPREDICT_DB is the store that is read: an empty store made there (the
# current schema) answers, where ./models.db is missing.
mkdir st && sqlite3 st/s.db <"$MPP_SRC/schema/schema.sql" || exit 1
MPIPREDICT_DB=st/s.db mpipredict-model list >out.txt 2>err.txt ||
	fail "mpipredict-model list with MPIPREDICT_DB=st/s.db: exited $?: $(cat err.txt)"
grep -q 'st/s.db' out.txt || fail "expected mpipredict-model list to read st/s.db, got $(cat out.txt)"
out=$(MPIPREDICT_DB=st/s.db mpipredict-accuracy --json) || fail "mpipredict-accuracy --json exited $?"
[ "$(echo "$out" | jq -c .)" = '{"by":"app","rows":[]}' ] ||
	fail "expected mpipredict-accuracy --json on an empty store to be {\"by\":\"app\",\"rows\":[]}, got $out"
MPIPREDICT_DB=st/s.db mpipredict-calibrate --show 2>err.txt
[ $? = 2 ] && grep -q 'no machine profile' err.txt ||
	fail "expected mpipredict-calibrate --show to read MPIPREDICT_DB's store and find no profile, got $(cat err.txt)"
# mpipredict-report only uses ./models.db when it exists, but a store
# named by MPIPREDICT_DB must be there.
printf 'run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,x.mean\nr,a,b,s,,1,1,1.0,,3\n' >runs.csv
MPIPREDICT_DB=missing.db mpipredict-report runs.csv >out.txt 2>err.txt
[ $? = 2 ] && grep -q 'missing.db: no store here' err.txt ||
	fail "expected mpipredict-report with MPIPREDICT_DB=missing.db to exit 2 naming it, got $(cat err.txt)"
[ ! -e missing.db ] || fail "mpipredict-report created missing.db"

# The manual pages: generated by `make man` (help2man) and rendered.
if ! command -v help2man >/dev/null; then
	echo "skipping the manual pages: help2man is not installed (apt-get install help2man)"
else
	make -s -C "$MPP_SRC" BUILD="$MPP_BUILD" man >make.txt 2>&1 || fail "make man failed: $(tail -n 3 make.txt)"
	for p in $progs; do
		page=$MPP_BUILD/man/man1/$p.1
		[ -s "$page" ] || { fail "no manual page $page"; continue; }
		if command -v man >/dev/null; then
			MANWIDTH=80 man -l "$page" >page.txt 2>err.txt
		else
			# grotty without bold and underline: plain text, as man
			# gives it (else NAME is written N^HNA^HA...).
			groff -man -Tutf8 -P-cbu "$page" >page.txt 2>err.txt
		fi
		[ $? = 0 ] && grep -q "^NAME" page.txt && grep -q "$p $version" page.txt ||
			fail "$page does not render with its NAME and version: $(head -c 300 err.txt)"
	done
fi
exit $failed
