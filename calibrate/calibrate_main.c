/*
 * calibrate_main.c: mpipredict-calibrate, the machine profile of the
 * contention-aware LogGPS model (calibrate/README.md).
 *
 *   mpirun -np P mpipredict-calibrate [--db FILE] [--machine NAME]
 *          [--levels LIST] [--reps N]
 *       locates every rank (host, package: collector/topo.h), picks for
 *       each level in LIST (default cmp,socket,net,mem) a pair of ranks with
 *       rank 0 at that level, runs the experiments (experiments.h), fits
 *       the parameters (fit.h) and stores the profile in the store; levels
 *       not in LIST come from the machine's newest stored profile; a level
 *       with no such pair is null and listed in "missing" with why.
 *   mpipredict-calibrate --show [--db FILE] [--machine NAME]
 *       prints the newest stored profile (of NAME, else of any machine)
 *       as JSON (regress/profile_json.h); no MPI.
 *
 * With no arguments it prints its usage and exits 1 (docs/cli.md): a
 * calibration writes a store, so it is asked for by at least one option.
 * Exit 0 ok, 1 usage, 2 bad input or store error (one line on stderr).
 * Not for: the math of the model (regress/loggps.h).
 */
#include <mpi.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate/experiments.h"
#include "calibrate/fit.h"
#include "calibrate/memory.h"
#include "collector/topo.h"
#include "regress/profile_json.h"
#include "schema/store.h"

static const char usage[] =
    "usage: mpirun -np P mpipredict-calibrate [--db FILE] [--machine NAME] "
    "[--levels LIST] [--reps N] [--json]\n"
    "       mpipredict-calibrate --show [--db FILE] [--machine NAME] "
    "[--json]\n"
    "Measures the contention-aware LogGPS parameters (o, Os, Or, g, L, G, "
    "h, C)\n"
    "for each level a pair of ranks can reach (cmp: same package, socket: "
    "same\n"
    "node other package, net: other node) and stores the profile.\n"
    "Run with no arguments it prints this text and exits 1: give at least\n"
    "one option (e.g. --db FILE) to calibrate.\n"
    "  --db FILE       the store (default $MPIPREDICT_DB, else ./models.db;\n"
    "                  created when missing; --show never creates it)\n"
    "  --machine NAME  profile name (default: the host name of rank 0)\n"
    "  --levels LIST   comma-separated levels to measure (default "
    "cmp,socket,net,mem;\n"
    "                  mem: the memory curve of rank 0's node);\n"
    "                  the others are kept from the newest stored profile\n"
    "  --reps N        repetitions of each timed experiment (default 50)\n"
    "  --show          print the newest stored profile as JSON and exit\n"
    "  --json          the output is the profile as JSON either way (a data\n"
    "                  format, regress/profile_json.h); accepted for the\n"
    "                  convention of every command\n"
    "  -h, --help      this text\n"
    "  --version       the version\n"
    "Exit status: 0 done, 1 usage error, 2 bad input, an MPI or store\n"
    "failure, or no stored profile (--show).\n"
    "Test hooks: MPIPREDICT_TEST_NODE_KEY (fake nodes), "
    "MPIPREDICT_TEST_PU (see collector/README.md).\n";

struct opts {
	const char *db, *machine;
	int want[MPP_NLV], want_mem, reps, show;
};

static int parse_levels(const char *s, int *want, int *want_mem)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int i, ok = copy != NULL;

	for (i = 0; i < MPP_NLV; i++)
		want[i] = 0;
	*want_mem = 0;
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; ok && tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < MPP_NLV && strcmp(tok, mpp_lv_names[i]); i++)
			;
		if (!strcmp(tok, "mem"))
			*want_mem = 1;
		else if (i == MPP_NLV)
			ok = 0;
		else
			want[i] = 1;
	}
	free(copy);
	return ok ? 0 : -1;
}

/* 0 ok, 1 usage error (message printed), 2 --help/--version printed. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
	    {"db", required_argument, 0, 'd'},
	    {"machine", required_argument, 0, 'm'},
	    {"levels", required_argument, 0, 'l'},
	    {"reps", required_argument, 0, 'r'},
	    {"show", no_argument, 0, 's'},
	    {"json", no_argument, 0, 'j'},
	    {"help", no_argument, 0, 'h'},
	    {"version", no_argument, 0, 'V'},
	    {0, 0, 0, 0},
	};
	char *end;
	int c;

	o->db = NULL;
	o->machine = NULL;
	o->reps = 50;
	o->show = 0;
	o->want[0] = o->want[1] = o->want[2] = o->want_mem = 1;
	if (argc < 2) {
		fputs(usage, stderr);
		return 1;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->db = optarg;
			break;
		case 'm':
			o->machine = optarg;
			break;
		case 'l':
			if (parse_levels(optarg, o->want, &o->want_mem) < 0) {
				fprintf(stderr,
					"mpipredict-calibrate: --levels %s: "
					"expected a comma-separated list of "
					"cmp, socket, net (see --help)\n",
					optarg);
				return 1;
			}
			break;
		case 'r':
			o->reps = (int)strtol(optarg, &end, 10);
			if (*end || o->reps < 3 || o->reps > 100000) {
				fprintf(stderr,
					"mpipredict-calibrate: --reps %s: "
					"expected an integer from 3 to "
					"100000 (see --help)\n",
					optarg);
				return 1;
			}
			break;
		case 's':
			o->show = 1;
			break;
		case 'j':
			break;
		case ':':
			fprintf(stderr,
				"mpipredict-calibrate: %s needs a value (see "
				"--help)\n",
				argv[optind - 1]);
			return 1;
		case 'h':
			fputs(usage, stdout);
			return 2;
		case 'V':
			printf("mpipredict-calibrate %s\n", MPP_VERSION);
			return 2;
		default:
			fprintf(stderr,
				"mpipredict-calibrate: unknown option %s (see "
				"--help)\n",
				argv[optind - 1]);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"mpipredict-calibrate: unexpected argument %s (see "
			"--help)\n",
			argv[optind]);
		return 1;
	}
	o->db = mpp_store_default_path(o->db);
	return 0;
}

static int show(const struct opts *o)
{
	mpp_store *s = NULL;
	char err[512], *json = NULL;
	int rc = mpp_store_open_existing(o->db, MPP_STORE_READONLY, &s, err,
					 sizeof err);

	if (rc == MPP_OK)
		rc = mpp_store_load_profile(s, o->machine, &json, err,
					    sizeof err);
	mpp_store_close(s);
	if (rc != MPP_OK) {
		fprintf(stderr, "mpipredict-calibrate: %s\n", err);
		return 2;
	}
	printf("%s\n", json);
	free(json);
	return 0;
}

/* Where each rank sits: node key and package, on every rank. */
struct where {
	int *node, *pkg;
	int nnodes, npackages, ncores;
};

static int locate(int me, int np, struct where *w, char *err, size_t errlen)
{
	MPI_Comm nc;
	struct mpp_place p;
	int mine[2], *pair = malloc(2 * (size_t)np * sizeof *pair), i, j;

	w->node = malloc((size_t)np * sizeof *w->node);
	w->pkg = malloc((size_t)np * sizeof *w->pkg);
	if (!pair || !w->node || !w->pkg) {
		free(pair);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
			    MPI_INFO_NULL, &nc);
	mine[0] = me;
	MPI_Bcast(&mine[0], 1, MPI_INT, 0, nc);
	MPI_Comm_free(&nc);
	if (mpp_topo_locate(&p, me, err, errlen) < 0 &&
	    getenv("MPIPREDICT_TEST_PU")) {
		free(pair);
		return -1;
	}
	mine[1] = p.package;
	MPI_Allgather(mine, 2, MPI_INT, pair, 2, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < np; i++) {
		w->node[i] = pair[2 * i];
		w->pkg[i] = pair[2 * i + 1];
	}
	free(pair);
	if (mpp_topo_fake_nodes(w->node, np, err, errlen) < 0)
		return -1;
	w->nnodes = 0;
	for (i = 0; i < np; i++) {
		for (j = 0; j < i && w->node[j] != w->node[i]; j++)
			;
		w->nnodes += j == i;
	}
	w->npackages = p.npackages;
	w->ncores = p.ncores;
	return 0;
}

static int level_of(const struct where *w, int x, int y)
{
	if (w->node[x] != w->node[y])
		return MPP_LV_NET;
	return w->pkg[x] == w->pkg[y] ? MPP_LV_CMP : MPP_LV_SOCKET;
}

/* Why no pair of level lv exists with rank 0. */
static const char *why_missing(int lv, const struct where *w, int np)
{
	if (np < 2)
		return "one rank: run with at least 2";
	switch (lv) {
	case MPP_LV_CMP:
		return "no other rank on rank 0's package";
	case MPP_LV_SOCKET:
		return w->npackages < 2
			   ? "one package per node on this machine"
			   : "no rank on another package of rank 0's node "
			     "(bind ranks to cores of both packages)";
	default:
		return w->nnodes < 2 ? "one node: run ranks on two or more "
				       "nodes (or fake nodes, see README)"
				     : "no rank on another node";
	}
}

static void iso_now(char *buf, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Rank 0: store the profile; levels not measured come from the machine's
 * newest stored profile. Returns the exit status. */
static int store_profile(const struct opts *o, mpp_loggps_profile *p)
{
	mpp_store *s = NULL;
	mpp_loggps_profile old;
	char err[512], *json = NULL;
	int rc, i, have_old = 0;

	rc = mpp_store_open(o->db, MPP_STORE_CREATE, &s, err, sizeof err);
	if (rc == MPP_OK && mpp_store_load_profile(s, p->machine, &json, err,
						   sizeof err) == MPP_OK) {
		have_old = mpp_profile_from_json(o->db, json, &old, err,
						 sizeof err) == 0;
		free(json);
		json = NULL;
	}
	/* Levels not measured now: the stored level, or why it is missing. */
	for (i = 0; have_old && i < MPP_NLV; i++)
		if (!o->want[i] && (old.level[i] || old.missing[i])) {
			p->level[i] = old.level[i];
			old.level[i] = NULL;
			free(p->missing[i]);
			p->missing[i] = old.missing[i];
			old.missing[i] = NULL;
		}
	/* The memory curve, when not measured now. */
	if (have_old && !o->want_mem && !p->mem) {
		p->mem = old.mem;
		old.mem = NULL;
	}
	if (have_old)
		mpp_loggps_profile_clear(&old);
	if (rc == MPP_OK && !(json = mpp_profile_to_json(p))) {
		rc = MPP_ENOMEM;
		snprintf(err, sizeof err, "out of memory");
	}
	if (rc == MPP_OK)
		rc = mpp_store_save_profile(s, p->machine, p->created_at, json,
					    err, sizeof err);
	mpp_store_close(s);
	if (rc != MPP_OK) {
		fprintf(stderr, "mpipredict-calibrate: %s\n", err);
		free(json);
		return 2;
	}
	printf("%s\n", json);
	free(json);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct where w = {0};
	mpp_loggps_profile prof = {0};
	char err[512] = "", host[256] = "", when[32];
	int rc = parse_args(argc, argv, &o), me, np, lv, status = 0, i;

	if (rc)
		return rc == 2 ? 0 : 1;
	if (o.show)
		return show(&o);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	rc = locate(me, np, &w, err, sizeof err);
	MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rc < 0) {
		if (me == 0)
			fprintf(stderr, "mpipredict-calibrate: %s\n",
				err[0] ? err : "locating the ranks failed");
		status = 2;
		goto out;
	}
	gethostname(host, sizeof host - 1);
	iso_now(when, sizeof when);
	prof.machine = strdup(o.machine ? o.machine : host);
	prof.created_at = strdup(when);
	prof.nodes_seen = w.nnodes;
	prof.packages_per_node = w.npackages;
	prof.cores_per_node = w.ncores;
	for (lv = 0; lv < MPP_NLV && status == 0; lv++) {
		struct cal_timings t;
		int b = -1, *cont = malloc((size_t)np * sizeof *cont), nc = 0;

		if (!cont) {
			status = 2;
			break;
		}
		for (i = 1; i < np && b < 0; i++)
			if (level_of(&w, 0, i) == lv)
				b = i;
		if (!o.want[lv] || b < 0) {
			if (o.want[lv])
				prof.missing[lv] =
				    strdup(why_missing(lv, &w, np));
			else
				prof.missing[lv] = strdup("not measured in "
							  "this run "
							  "(--levels)");
			free(cont);
			continue;
		}
		/* Contenders: the other ranks of rank 0's node first. */
		for (i = 1; i < np; i++)
			if (i != b && w.node[i] == w.node[0])
				cont[nc++] = i;
		for (i = 1; i < np; i++)
			if (i != b && w.node[i] != w.node[0])
				cont[nc++] = i;
		if (nc > 2 * w.ncores)
			nc = 2 * w.ncores;
		rc = cal_run_pair(0, b, cont, nc, o.reps, &t, err, sizeof err);
		free(cont);
		if (rc < 0) {
			fprintf(stderr, "mpipredict-calibrate: %s\n", err);
			status = 2;
			break;
		}
		if (me == 0) {
			prof.level[lv] = calloc(1, sizeof *prof.level[lv]);
			if (!prof.level[lv] ||
			    cal_fit_level(&t, w.ncores, prof.level[lv], err,
					  sizeof err) < 0) {
				fprintf(stderr,
					"mpipredict-calibrate: %s: %s\n",
					mpp_lv_names[lv], err);
				status = 2;
			}
		}
		cal_timings_free(&t);
	}
	/* The memory curve of rank 0's node (calibrate/memory.h). */
	if (status == 0 && o.want_mem) {
		mpp_mem_curve c;
		if (cal_run_memory(w.node[me] == w.node[0],
				   o.reps > 5 ? 5 : o.reps, &c, err,
				   sizeof err) < 0) {
			if (me == 0)
				fprintf(stderr, "mpipredict-calibrate: %s\n",
					err);
			status = 2;
		} else if (me == 0 && !(prof.mem = malloc(sizeof c))) {
			fprintf(stderr,
				"mpipredict-calibrate: out of memory\n");
			status = 2;
		} else if (me == 0)
			*prof.mem = c;
	}
	if (me == 0 && status == 0)
		status = store_profile(&o, &prof);
out:
	mpp_loggps_profile_clear(&prof);
	free(w.node);
	free(w.pkg);
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return status;
}
