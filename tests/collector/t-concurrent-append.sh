#!/usr/bin/env bash
# 100 runs of an instrumented program started at once, all appending to one
# runs file, leave 100 well-formed rows (strict RFC 4180 reader): one
# header, no torn or interleaved row, every run present once, arguments with
# a comma and quotes intact. OpenMPI singletons (100) and MPICH (20); a
# quarter of that under SANITIZE=1.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	count=100
	[ "$m" = mpich ] && count=20
	# Under SANITIZE=1 an MPI start costs seconds: a quarter of the runs.
	[ "${MPP_SANITIZE:-0}" = 1 ] && count=$((count / 4))
	rm -rf runs tmp
	# Each run has a TMPDIR of its own: 25 OpenMPI singletons creating
	# their session directories under one TMPDIR at once lost a race in
	# OpenMPI's mkdir once ("A call to mkdir was unable to create the
	# desired directory", 1 run of 100), which is not what this tests.
	cat >run1.sh <<'EOF'
#!/bin/sh
mkdir -p "tmp/$1" && TMPDIR="$PWD/tmp/$1" exec ./traffic loops -- 'a,b' 'say "hi"' "$1"
EOF
	seq $count | MPIPREDICT_RUNS=runs/all.csv xargs -P 25 -I{} sh ./run1.sh {} 2>err.txt ||
		fail "$m: some run failed: $(head -3 err.txt)"
	[ -s err.txt ] && fail "$m: expected no message, got: $(head -3 err.txt)"
	rows=$(csvget runs/all.csv) || { fail "$m: runs/all.csv is not well-formed CSV"; continue; }
	[ "$rows" = $count ] || fail "$m: expected $count rows, got $rows"
	got=$(csvget -c args runs/all.csv | sort -t' ' -k6n | uniq | tr '\n' '|')
	exp=$(for i in $(seq $count); do printf 'loops -- a,b say "hi" %s|' "$i"; done)
	[ "$got" = "$exp" ] || fail "$m: expected args 'loops -- a,b say \"hi\" 1..$count' once each, got $got"
	ids=$(csvget -c run_id runs/all.csv | sort -u | wc -l)
	[ "$ids" = $count ] || fail "$m: expected $count distinct run_ids, got $ids"
	heads=$(grep -c '^run_id,' runs/all.csv)
	[ "$heads" = 1 ] || fail "$m: expected one header line, got $heads"
	maxes=$(csvget -c loop:t.c:200:5.max runs/all.csv | sort -u)
	[ "$maxes" = 10 ] || fail "$m: expected loop max 10 in every row, got $maxes"
done
finish
