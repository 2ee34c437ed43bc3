#!/usr/bin/env bash
# A counted loop that steps a second variable beside its own (issue 34):
# CoMD's link-cell pair loop, `for (int jOff = MAXATOMS*jBox, ij = 0; ij <
# nJBox; ij++, jOff++)` with `continue`s in its body, is no host when a
# call to another file's function is in it (here a report of a bad id;
# in CoMD it was too many counters, before t-derived-chains.sh's
# derivations), so its count was a load and a store on every pair; its trip count is known at entry (nJBox, changed by nothing
# in the body), and the second variable's step changes neither ij nor the
# bound. Asserted: the pair loop (two declarators, comma steps) and the
# atom loop around it (a comma init of assignments) get their counts added
# at entry, with no increment left in their bodies; a loop whose second
# step changes its own bound (`j < m; j++, m--`) keeps its increment; a
# host of its own in the same form (assign) keeps its local increment, as
# hosts do; every count is the program's own (it counts
# each loop's passes in plain variables and prints them), built with gcc
# -O3 and clang -O3 against the test runtime.
. "$MPP_SRC/tests/instrument/lib.sh"
cat >pairs.c <<'C'
#include <stdio.h>
#define MAXATOMS 8
#define NBOX 12
static int nAtoms[NBOX], gid[NBOX * MAXATOMS];
static double r[NBOX * MAXATOMS][3], f[NBOX * MAXATOMS][3];
static long n_atom, n_pair, n_assign, n_shrink;
void report_bad(int id); /* report.c */
static double pairs(int nBoxes, int nLocal, double rCut2)
{
	double e = 0;
	for (int iBox = 0; iBox < nLocal; iBox++) {
		int nIBox = nAtoms[iBox];
		if (nIBox == 0)
			continue;
		for (int jBox = 0; jBox < nBoxes; jBox++) {
			int nJBox = nAtoms[jBox];
			if (nJBox == 0)
				continue;
			int iOff, ii;
			for (iOff = iBox * MAXATOMS, ii = 0; ii < nIBox; ii++, iOff++) {
				int iId = gid[iOff];
				n_atom++;
				for (int jOff = MAXATOMS * jBox, ij = 0; ij < nJBox; ij++, jOff++) {
					int jId = gid[jOff];
					n_pair++;
					if (jId < 0)
						report_bad(jId);
					if (jBox < nLocal && jId <= iId)
						continue;
					double dr[3], r2 = 0;
					for (int m = 0; m < 3; m++) {
						dr[m] = r[iOff][m] - r[jOff][m];
						r2 += dr[m] * dr[m];
					}
					if (r2 > rCut2)
						continue;
					if (jBox < nLocal)
						e += r2;
					else
						e += 0.5 * r2;
					for (int m = 0; m < 3; m++) {
						f[iOff][m] -= dr[m] * r2;
						f[jOff][m] += dr[m] * r2;
					}
				}
			}
		}
	}
	return e;
}
static long assign(int n)
{
	long s = 0;
	int i, k;
	for (i = 0, k = n; i < n; i++, k -= 2) {
		n_assign++;
		s += k;
	}
	return s;
}
static long shrink(int n)
{
	long s = 0;
	for (int j = 0, m = n; j < m; j++, m--) {
		n_shrink++;
		s += j * m;
	}
	return s;
}
int main(void)
{
	unsigned s = 7;
	for (int b = 0; b < NBOX; b++) {
		s = s * 1103515245u + 12345u;
		nAtoms[b] = (int)(s >> 16) % MAXATOMS;
		for (int a = 0; a < MAXATOMS; a++) {
			s = s * 1103515245u + 12345u;
			gid[b * MAXATOMS + a] = b * MAXATOMS + a;
			for (int m = 0; m < 3; m++) {
				s = s * 1103515245u + 12345u;
				r[b * MAXATOMS + a][m] = (double)(s >> 8) / 16777216.0;
			}
		}
	}
	double e = 0;
	long t = 0;
	for (int it = 0; it < 50; it++) {
		e += pairs(NBOX, NBOX / 2, 0.1 + 0.005 * it);
		t += assign(it) + shrink(it);
	}
	printf("%.6f %ld\n", e, t);
	printf("atom %ld\npair %ld\nassign %ld\nshrink %ld\n", n_atom, n_pair,
	       n_assign, n_shrink);
	return 0;
}
C
cat >report.c <<'C'
#include <stdio.h>
void report_bad(int id);
void report_bad(int id) { fprintf(stderr, "bad id %d\n", id); }
C
"$INS" -o out pairs.c 2>notes || fail "mpipredict-instrument exited $?: $(cat notes)"
# LINE FILE PATTERN: the line of FILE holding PATTERN (the rewrite keeps
# the source's lines but adds its own).
line() { grep -n -- "$2" "$1" | head -1 | cut -d: -f1; }
la=$(line pairs.c 'ii < nIBox') lp=$(line pairs.c 'ij < nJBox')
ls=$(line pairs.c 'i < n; i++, k') lm=$(line pairs.c 'j < m; j++')
for p in 'ii < nIBox' 'ij < nJBox'; do
	l=$(line out/pairs.c "$p")
	sed -n "${l}p" out/pairs.c | grep -q '+= __extension__' ||
		fail "expected the count of the loop '$p' added at entry, got: $(sed -n "${l}p" out/pairs.c)"
	sed -n "$((l + 1)),$((l + 2))p" out/pairs.c | grep -Eq '__mpp_(c_[0-9a-f]*\[[0-9]*\]|l[0-9]+)\+\+' &&
		fail "expected no increment in the body of the loop '$p', got: $(sed -n "$l,$((l + 2))p" out/pairs.c)"
done
l=$(line out/pairs.c 'j < m; j++')
sed -n "$l,$((l + 1))p" out/pairs.c | grep -Eq '__mpp_(c_[0-9a-f]*\[[0-9]*\]|l[0-9]+)\+\+' ||
	fail "expected the loop that steps its own bound to keep its increment, got: $(sed -n "$l,$((l + 1))p" out/pairs.c)"
for cc in gcc clang; do
	run_both "$cc" pairs -O3 report.c
	for x in "atom $la" "pair $lp" "assign $ls" "shrink $lm"; do
		loop_counted pairs.c "${x% *}" "${x#* }" "$cc"
	done
done
exit 0
