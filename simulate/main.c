/*
 * main.c: mpipredict-simulate, run-time prediction on SimGrid SMPI for a
 * configuration (input, ranks, nodes, ranks per node) that was never run.
 *
 *   platform        profile -> platform.xml, hostfile, smpi.cfg
 *   check-platform  load a platform with SimGrid, list hosts, links, routes
 *   replay          replay a trace (MPIPREDICT_TRACE) on the profile's machine
 *   predict         online SMPI run of the target (the skeleton; its own
 *                   simulated time is plain SMPI's prediction), computation
 *                   rescaled from single-rank traces, replayed
 * Exit: 0 ok, 1 usage, 2 bad input, 3 SimGrid failed.
 *
 * Not for: serving predictions (the daemon never simulates on the request
 * path).
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>
#include <math.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include "simulate/analysis.h"
#include "simulate/platform.h"
#include "simulate/replay.h"
#include "simulate/ti.h"
#include "regress/runs.h"

static const char *prog = "mpipredict-simulate";

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: %s platform --profile F --ranks N [--nodes K] [--rpn R] "
	    "-o DIR\n"
	    "       %s check-platform PLATFORM.xml\n"
	    "       %s replay --profile F --trace DIR [--nodes K] [--rpn R] "
	    "[--json] [--keep DIR] [--no-links]\n"
	    "       %s predict --profile F --train DIR [--train DIR...] "
	    "--ranks N\n"
	    "             [--nodes K] [--rpn R] [--json] [--keep DIR]\n"
	    "             [--skeleton DIR] [--no-links] [--repeats "
	    "min|median]\n"
	    "             [--no-noise] [--no-residual] [--runs CSV...] -- "
	    "SMPI_PROGRAM "
	    "[ARGS...]\n"
	    "Predict an MPI program's run time on SimGrid SMPI, on the "
	    "machine a\n"
	    "calibration profile describes (see simulate/README.md). Each "
	    "answer states\n"
	    "an interval: the nearest --train runs' walls against the "
	    "answer for them,\n"
	    "widened by the law's error times the distance to the traced "
	    "inputs.\n"
	    "  --profile F   calibration profile (JSON of "
	    "mpipredict-calibrate)\n"
	    "  --ranks N     ranks; --nodes K nodes (default 1); --rpn R "
	    "ranks per node\n"
	    "                (default ceil(N/K))\n"
	    "  --trace DIR   a trace written with MPIPREDICT_TRACE=DIR\n"
	    "  --train DIR   a trace at an input and rank count that was "
	    "run (two or more:\n"
	    "                per-segment power laws in the parameters and "
	    "rank counts\n"
	    "                that vary among them)\n"
	    "  SMPI_PROGRAM  the program built with smpicc and "
	    "mpp-smpitrace.o\n"
	    "  --skeleton DIR  the online SMPI run's trace: reused when DIR "
	    "holds one\n"
	    "                of the same ranks and arguments (any "
	    "placement), else\n"
	    "                written there\n"
	    "  MPIPREDICT_PARAMS=\"N=.. M=..\"  parameters the program's "
	    "arguments do not\n"
	    "                show (an input deck's sizes), as its traces "
	    "declared them\n"
	    "  --repeats min|median  of --train traces with the same "
	    "arguments, per\n"
	    "                segment kind (default median; min: the least "
	    "disturbed)\n"
	    "  --no-noise    keep SMPI's timing of the segments (default: "
	    "the timing the\n"
	    "                --train traces of 2 ranks or more nearest "
	    "the target's\n"
	    "                rank count had: the machine's noise, ranks "
	    "running late)\n"
	    "  --no-residual  add nothing for what the simulator misses "
	    "(default: the\n"
	    "                time the nearest --train runs spent beyond "
	    "their own replay,\n"
	    "                per MPI action, times the target's actions)\n"
	    "  --runs CSV    the run rows (mpipredict-cc build) of the "
	    "--train runs: the\n"
	    "                computation's total becomes the target's "
	    "counted work (loop\n"
	    "                counters' power law) times the cost per unit "
	    "at the largest\n"
	    "                input traced at the target's rank count "
	    "(repeatable)\n"
	    "  --share-malloc BYTES  one copy of each allocation of BYTES "
	    "or more for\n"
	    "                all ranks of the SMPI run (SimGrid's folding: "
	    "many ranks in\n"
	    "                the memory of a few), for programs that do not "
	    "decide what\n"
	    "                to call from that memory: checked by a run so "
	    "at the largest\n"
	    "                rank count of a --train trace of the same "
	    "arguments\n"
	    "  --no-links    no SimGrid link tracing (about half the "
	    "replay's CPU time;\n"
	    "                no link utilisation in the analyses)\n"
	    "  --json        JSON instead of text; --keep DIR keep the "
	    "work files\n"
	    "  -h, --help, --version\n",
	    prog, prog, prog, prog);
}

struct opts {
	const char *profile, *trace, *out, *keep, *skeleton;
	const char *train[32], *runs[8];
	size_t ntrain, nruns;
	int ranks, nodes, rpn, json, no_links, use_min, no_noise, no_residual;
	long long share; /* --share-malloc BYTES; 0: off */
};

static int parse(int argc, char **argv, struct opts *o)
{
	enum {
		O_PROFILE = 256,
		O_TRACE,
		O_TRAIN,
		O_RANKS,
		O_NODES,
		O_RPN,
		O_JSON,
		O_KEEP,
		O_SKELETON,
		O_NO_LINKS,
		O_REPEATS,
		O_NO_NOISE,
		O_RUNS,
		O_NO_RESIDUAL,
		O_SHARE
	};
	static const struct option lo[] = {
	    {"profile", required_argument, NULL, O_PROFILE},
	    {"trace", required_argument, NULL, O_TRACE},
	    {"train", required_argument, NULL, O_TRAIN},
	    {"ranks", required_argument, NULL, O_RANKS},
	    {"nodes", required_argument, NULL, O_NODES},
	    {"rpn", required_argument, NULL, O_RPN},
	    {"json", no_argument, NULL, O_JSON},
	    {"keep", required_argument, NULL, O_KEEP},
	    {"skeleton", required_argument, NULL, O_SKELETON},
	    {"no-links", no_argument, NULL, O_NO_LINKS},
	    {"repeats", required_argument, NULL, O_REPEATS},
	    {"no-noise", no_argument, NULL, O_NO_NOISE},
	    {"runs", required_argument, NULL, O_RUNS},
	    {"no-residual", no_argument, NULL, O_NO_RESIDUAL},
	    {"share-malloc", required_argument, NULL, O_SHARE},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	int c;
	char *end;
	memset(o, 0, sizeof *o);
	o->nodes = 1;
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:h", lo, NULL)) != -1) {
		long v = 0;
		switch (c) {
		case O_RANKS:
		case O_NODES:
		case O_RPN:
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 65536) {
				fprintf(stderr,
					"%s: --%s: expected an integer in [1, "
					"65536], got '%s' (see --help)\n",
					prog, lo[c - O_PROFILE].name, optarg);
				return 1;
			}
			if (c == O_RANKS)
				o->ranks = (int)v;
			else if (c == O_NODES)
				o->nodes = (int)v;
			else
				o->rpn = (int)v;
			break;
		case O_PROFILE:
			o->profile = optarg;
			break;
		case O_TRACE:
			o->trace = optarg;
			break;
		case O_TRAIN:
			if (o->ntrain == 32) {
				fprintf(stderr,
					"%s: --train: at most 32 (see "
					"--help)\n",
					prog);
				return 1;
			}
			o->train[o->ntrain++] = optarg;
			break;
		case O_JSON:
			o->json = 1;
			break;
		case O_KEEP:
			o->keep = optarg;
			break;
		case O_SKELETON:
			o->skeleton = optarg;
			break;
		case O_NO_LINKS:
			o->no_links = 1;
			break;
		case O_NO_NOISE:
			o->no_noise = 1;
			break;
		case O_NO_RESIDUAL:
			o->no_residual = 1;
			break;
		case O_SHARE:
			errno = 0;
			o->share = strtoll(optarg, &end, 10);
			if (errno || *end || end == optarg || o->share < 1) {
				fprintf(stderr,
					"%s: --share-malloc: expected a number "
					"of bytes >= 1, got '%s' (see "
					"--help)\n",
					prog, optarg);
				return 1;
			}
			break;
		case O_RUNS:
			if (o->nruns == 8) {
				fprintf(stderr,
					"%s: --runs: at most 8 (see --help)\n",
					prog);
				return 1;
			}
			o->runs[o->nruns++] = optarg;
			break;
		case O_REPEATS:
			if (strcmp(optarg, "min") && strcmp(optarg, "median")) {
				fprintf(stderr,
					"%s: --repeats: expected min or "
					"median, got '%s' (see --help)\n",
					prog, optarg);
				return 1;
			}
			o->use_min = !strcmp(optarg, "min");
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr,
				"%s: unknown or incomplete option '%s' (see "
				"--help)\n",
				prog, argv[optind - 1]);
			return 1;
		}
	}
	return 0;
}

static int need(const char *v, const char *name)
{
	if (!v) {
		fprintf(stderr, "%s: %s is required (see --help)\n", prog,
			name);
		return 1;
	}
	return 0;
}

static void placement(const struct opts *o, int ranks, struct mpp_placement *pl)
{
	pl->ranks = ranks;
	pl->nodes = o->nodes;
	pl->rpn = o->rpn ? o->rpn : (ranks + o->nodes - 1) / o->nodes;
}

/* A work directory: --keep DIR (created) or a fresh one under TMPDIR. */
static int workdir(const char *keep, char *dir, size_t len)
{
	if (keep) {
		snprintf(dir, len, "%s", keep);
		if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			fprintf(stderr, "%s: --keep %s: %s\n", prog, dir,
				strerror(errno));
			return -1;
		}
		return 0;
	}
	const char *t = getenv("TMPDIR");
	snprintf(dir, len, "%s/mpp-sim.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(errno));
		return -1;
	}
	return 0;
}

static void rmtree(const char *dir)
{
	pid_t pid = fork();
	if (pid == 0) {
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (wait(NULL) < 0 && errno == EINTR)
			;
}

static int cmd_platform(int argc, char **argv)
{
	struct opts o;
	struct mpp_profile p;
	struct mpp_placement pl;
	char err[512];
	if (parse(argc, argv, &o) || need(o.profile, "--profile") ||
	    need(o.out, "-o") || (!o.ranks && need(NULL, "--ranks")))
		return 1;
	if (mpp_profile_read(o.profile, &p, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	placement(&o, o.ranks, &pl);
	if (mkdir(o.out, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: -o %s: %s\n", prog, o.out,
			strerror(errno));
		return 2;
	}
	if (mpp_platform_write(&p, &pl, o.out, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	if (argc != 3) {
		usage(stderr);
		return 1;
	}
	if (access(argv[2], R_OK) != 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[2], strerror(errno));
		return 2;
	}
	int sargc = 2;
	char *sargv[] = {(char *)prog, "--log=root.thresh:warning", NULL};
	simgrid_init(&sargc, sargv);
	simgrid_load_platform(argv[2]);
	simgrid_run(); /* no actors: it seals the platform (Dijkstra's graph) */
	size_t nh = sg_host_count(), nl = sg_link_count();
	sg_host_t *hosts = sg_host_list();
	sg_link_t *links = sg_link_list();
	printf("hosts %zu\n", nh);
	for (size_t i = 0; i < nh; i++)
		printf("host %s speed %.6g cores %d\n",
		       sg_host_get_name(hosts[i]), sg_host_get_speed(hosts[i]),
		       sg_host_core_count(hosts[i]));
	printf("links %zu\n", nl);
	for (size_t i = 0; i < nl; i++)
		printf(
		    "link %s bandwidth %.6g latency %.6g shared %d\n",
		    sg_link_get_name(links[i]), sg_link_get_bandwidth(links[i]),
		    sg_link_get_latency(links[i]), sg_link_is_shared(links[i]));
	for (size_t i = 0; i < nh; i++)
		for (size_t j = 0; j < nh; j++) {
			xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
			sg_host_get_route(hosts[i], hosts[j], d);
			printf("route %s %s", sg_host_get_name(hosts[i]),
			       sg_host_get_name(hosts[j]));
			unsigned k;
			sg_link_t l;
			xbt_dynar_foreach(d, k, l)
			    printf(" %s", sg_link_get_name(l));
			printf("\n");
			xbt_dynar_free(&d);
		}
	xbt_free(hosts);
	xbt_free(links);
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Replay t on the profile's machine in dir; print the analyses. The
 * answer adds `residual` seconds, or, when rfrac is a number, rfrac times
 * the simulated time (predict beyond the traced rank counts). band (may
 * be NULL): the interval as factors of the answer, on what (basis). */
static int replay_and_report(const struct opts *o, const struct mpp_profile *p,
			     const struct mpp_trace *t, const char *dir,
			     json_t *extra, const char *text_extra,
			     double residual, double rfrac, const double *band,
			     const char *basis)
{
	struct mpp_placement pl;
	struct mpp_timeline tl;
	struct mpp_analysis a;
	char err[1024], rdir[4200];
	size_t approx;
	placement(o, t->nranks, &pl);
	if (mpp_platform_write(p, &pl, dir, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	snprintf(rdir, sizeof rdir, "%s", dir);
	if (mpp_trace_write_replay(t, rdir, &approx, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	/* SimGrid's link trace costs about 5 KB of memory per replayed
	 * action and doubles the replay's time (miniFE at 64 ranks, 600 000
	 * actions: 126 s and 3.0 GB with it, 78 s and 176 MB without):
	 * beyond a budget the figures it gives are not worth it. */
	size_t nact = 0;
	for (int r = 0; r < t->nranks; r++)
		nact += t->n[r];
	int links = !o->no_links && nact <= MPP_LINK_TRACE_MAX_ACTIONS;
	if (mpp_replay_run(dir, t->nranks, links, &tl, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 3;
	}
	if (mpp_analyse(&tl, t, p, &pl, &a) < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		mpp_timeline_free(&tl);
		return 3;
	}
	if (isfinite(rfrac)) {
		residual = rfrac * a.makespan;
		if (extra)
			json_object_set_new(extra, "residual_s",
					    json_real(residual));
	}
	if (o->json) {
		json_t *j = mpp_analysis_json(&a);
		json_object_set_new(j, "ranks_n", json_integer(t->nranks));
		json_object_set_new(j, "nodes", json_integer(pl.nodes));
		json_object_set_new(j, "rpn", json_integer(pl.rpn));
		json_object_set_new(j, "replay_wall_s", json_real(tl.wall));
		json_object_set_new(j, "link_trace",
				    json_boolean(tl.nlinks > 0));
		json_object_set_new(j, "approximated_actions",
				    json_integer((json_int_t)approx));
		if (t->wall > 0)
			json_object_set_new(j, "traced_wall_s",
					    json_real(t->wall));
		if (extra)
			json_object_update(j, extra);
		/* The answer: the simulated time and what the simulator
		 * misses (predict's residual, 0 for a replay). */
		json_object_set_new(j, "predicted_s",
				    json_real(a.makespan + residual));
		if (band) {
			double v = a.makespan + residual;
			json_object_set_new(
			    j, "interval_s",
			    json_pack("[f,f]", v * band[0], v * band[1]));
			json_object_set_new(j, "interval_basis",
					    json_string(basis));
		}
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(8));
		putchar('\n');
		json_decref(j);
	} else {
		if (text_extra)
			fputs(text_extra, stdout);
		mpp_analysis_print(&a, stdout);
		if (residual != 0)
			printf("predicted run time   %.6f s (simulated %+.6f s "
			       "residual)\n",
			       a.makespan + residual, residual);
		if (band)
			printf("interval: [%.6f, %.6f] s (%s)\n",
			       (a.makespan + residual) * band[0],
			       (a.makespan + residual) * band[1], basis);
		if (!tl.nlinks) {
			if (links || o->no_links)
				printf("(no SimGrid link trace: ");
			else
				printf("(no SimGrid link trace: %zu replayed "
				       "actions, above its budget of %d; ",
				       nact, MPP_LINK_TRACE_MAX_ACTIONS);
			printf("links, link_bytes and utilisation not "
			       "measured)\n");
		}
		printf("placement            %d ranks, %d nodes, %d per node\n",
		       t->nranks, pl.nodes, pl.rpn);
		printf("replay wall time     %.3f s (%zu actions "
		       "approximated)\n",
		       tl.wall, approx);
	}
	mpp_analysis_free(&a);
	mpp_timeline_free(&tl);
	return 0;
}

/* The work directory goes, unless --keep, or SimGrid failed (exit 3):
 * its message names a log there (replay.log, smpi.log), which must
 * still exist when the user reads it. */
static void clean_or_keep(const struct opts *o, const char *dir, int rc)
{
	if (o->keep)
		return;
	if (rc == 3) {
		fprintf(stderr, "%s: kept %s for its logs\n", prog, dir);
		return;
	}
	rmtree(dir);
}

static int cmd_replay(int argc, char **argv)
{
	struct opts o;
	struct mpp_profile p;
	struct mpp_trace t;
	char err[1024], dir[4096];
	int rc;
	if (parse(argc, argv, &o) || need(o.profile, "--profile") ||
	    need(o.trace, "--trace"))
		return 1;
	if (mpp_profile_read(o.profile, &p, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	if (mpp_trace_read(o.trace, &t, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		mpp_trace_free(&t);
		return 2;
	}
	if (workdir(o.keep, dir, sizeof dir) < 0) {
		mpp_trace_free(&t);
		return 2;
	}
	rc = replay_and_report(&o, &p, &t, dir, NULL, NULL, 0, NAN, NULL, NULL);
	clean_or_keep(&o, dir, rc);
	mpp_trace_free(&t);
	return rc;
}

static void runs_warn(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s: --runs: %s\n", prog, msg);
}

/* Counted work of training trace t: over the rows of its arguments and
 * rank count, the median of the loop counters' per-rank means summed and
 * times the ranks (loop iterations of the whole run). 0: no such row, or
 * a row without loop counters. */
static double work_of(const mpp_runs *rs, const struct mpp_trace *t)
{
	double v[64];
	size_t n = 0;
	for (size_t i = 0; i < rs->nruns && n < 64; i++) {
		const mpp_run *r = &rs->runs[i];
		double w = 0;
		int loops = 0;
		if (strcmp(r->args ? r->args : "", t->args) ||
		    r->nprocs != t->nranks)
			continue;
		for (size_t f = 0; f < rs->nfeatures; f++) {
			const char *c = rs->features[f];
			size_t l = strlen(c);
			if (strncmp(c, "loop:", 5) || l < 5 ||
			    strcmp(c + l - 5, ".mean") ||
			    !isfinite(r->values[f]))
				continue;
			w += r->values[f];
			loops = 1;
		}
		if (loops && w > 0)
			v[n++] = w * r->nprocs;
	}
	if (!n)
		return 0;
	gsl_sort(v, 1, n);
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* A rank's MPI actions, averaged over the ranks: every action but
 * compute, init and finalize. */
static double mpi_actions_per_rank(const struct mpp_trace *t)
{
	double n = 0;
	for (int r = 0; r < t->nranks; r++)
		for (size_t i = 0; i < t->n[r]; i++) {
			const char *k = t->a[r][i].name;
			n += strcmp(k, "compute") && strcmp(k, "init") &&
			     strcmp(k, "finalize");
		}
	return t->nranks > 0 ? n / t->nranks : 0;
}

/* What the simulator misses on this machine, measured on the training
 * traces nearest the target (`src`, the noise's sources) of two ranks or
 * more: each replayed as it ran (its ranks on one node, its own segment
 * timings); its measured wall (the slowest rank's "# wall") minus the
 * replay's simulated time is time the real run spent in MPI beyond the
 * model (a rank descheduled inside a call while the other waits, the
 * transport's own costs), per MPI action of a rank. *per: the median over
 * the sources (the least with use_min), seconds per action; *frac: the
 * same as a share of each source's replayed time; *used:
 * sources measured (0: none had two ranks, a wall and MPI actions).
 * run[0..*nrun): every source with a wall (a single rank's too), its
 * wall, replayed time and MPI actions per rank, for the interval.
 * Returns 0, or -1 with err. */
struct src_run {
	double wall, sim, acts;
};

static int residual_per_action(const struct mpp_profile *p,
			       const struct mpp_trace *const *src, size_t nsrc,
			       int use_min, const char *dir, double *per,
			       double *frac, size_t *used, struct src_run *run,
			       size_t *nrun, char *err, size_t errlen)
{
	double v[32], fr[32];
	*per = 0;
	*frac = 0;
	*used = 0;
	*nrun = 0;
	for (size_t s = 0; s < nsrc; s++) {
		const struct mpp_trace *t = src[s];
		double acts = mpi_actions_per_rank(t);
		struct mpp_placement pl = {t->nranks, 1, t->nranks};
		struct mpp_timeline tl;
		char rdir[4200];
		size_t approx;
		if (!(t->wall > 0))
			continue;
		snprintf(rdir, sizeof rdir, "%s/residual-%zu", dir, s);
		if (mkdir(rdir, 0777) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "%.900s: %s", rdir,
				 strerror(errno));
			return -1;
		}
		if (mpp_platform_write(p, &pl, rdir, err, errlen) < 0 ||
		    mpp_trace_write_replay(t, rdir, &approx, err, errlen) < 0 ||
		    mpp_replay_run(rdir, t->nranks, 0, &tl, err, errlen) < 0)
			return -1;
		if (*nrun < 32 && tl.sim_time > 0)
			run[(*nrun)++] =
			    (struct src_run){t->wall, tl.sim_time, acts};
		/* A single rank waits for no one: its wall minus its
		 * replay is the calls' own cost, not the waits at an
		 * exchange that the replay misses. Added to the 2-rank
		 * targets of bench-simulate's first design (traced at 1
		 * rank) it made the error worse in 3 of 3 runs. */
		if (t->nranks >= 2 && acts >= 1 && *used < 32 &&
		    tl.sim_time > 0) {
			fr[*used] = (t->wall - tl.sim_time) / tl.sim_time;
			v[(*used)++] = (t->wall - tl.sim_time) / acts;
		}
		mpp_timeline_free(&tl);
	}
	/* Over the repeats as the laws take them (--repeats): the median,
	 * so that one disturbed training run does not carry its disturbance
	 * into every prediction; or the least disturbed. */
	if (*used) {
		gsl_sort(v, 1, *used);
		gsl_sort(fr, 1, *used);
		*per = use_min ? v[0]
			       : gsl_stats_median_from_sorted_data(v, 1, *used);
		*frac = use_min
			    ? fr[0]
			    : gsl_stats_median_from_sorted_data(fr, 1, *used);
	}
	return 0;
}

/* --share-malloc: SimGrid's folding gives every rank the same pages for
 * each large allocation, so a program that decides what to call from
 * that memory (a convergence test, sizes or indices kept there) is
 * simulated doing something else. Checked by running the program so at
 * the largest rank count of a --train trace of the same arguments: its
 * calls must be the traced run's. Returns the index of that trace, -1
 * when there is none (not checked, said on stderr), -2 on failure
 * (message printed; *rc set). */
static long share_check(const struct opts *o, const struct mpp_profile *p,
			const char *dir, const struct mpp_trace *train,
			size_t nt, const char *args, char *const *cmd, int *rc)
{
	long j = -1;
	for (size_t i = 0; i < nt; i++)
		if (!strcmp(train[i].args, args) &&
		    (j < 0 || train[i].nranks > train[j].nranks))
			j = (long)i;
	if (j < 0) {
		fprintf(stderr,
			"%s: --share-malloc: not checked: no --train trace of "
			"arguments '%s'\n",
			prog, args);
		return -1;
	}
	char cdir[4200], tdir[4300], err[4400] = "", msg[256];
	struct mpp_placement pl;
	struct mpp_trace got = {0};
	double wall;
	snprintf(cdir, sizeof cdir, "%s/share-check", dir);
	snprintf(tdir, sizeof tdir, "%s/trace", cdir);
	placement(o, train[j].nranks, &pl);
	if (pl.nodes > pl.ranks)
		pl.nodes = pl.ranks, pl.rpn = 1;
	*rc = 3;
	if (mkdir(cdir, 0777) < 0 && errno != EEXIST)
		snprintf(err, sizeof err, "%s: %s", cdir, strerror(errno));
	if (err[0] || mpp_platform_write(p, &pl, cdir, err, sizeof err) < 0) {
		fprintf(stderr, "%s: --share-malloc check: %s\n", prog, err);
		return -2;
	}
	/* A program that keeps indices or pointers there crashes (PENNANT:
	 * a segmentation fault): the option does not suit it (exit 3 keeps
	 * the log the message names). */
	if (mpp_smpi_run(cdir, train[j].nranks, cmd[0], cmd + 1, o->share, tdir,
			 &wall, err, sizeof err) < 0 ||
	    mpp_trace_read(tdir, &got, err, sizeof err) < 0) {
		fprintf(stderr,
			"%s: --share-malloc %lld: at %d ranks the program "
			"failed with its allocations of that size shared "
			"(%s): predict without --share-malloc, or with a "
			"larger size\n",
			prog, o->share, train[j].nranks, err);
		mpp_trace_free(&got);
		return -2;
	}
	*rc = 2;
	int same = mpp_trace_same_calls(&got, &train[j], msg, sizeof msg);
	mpp_trace_free(&got);
	if (same != 0) {
		fprintf(stderr,
			"%s: --share-malloc %lld: at %d ranks the program "
			"makes other MPI calls than --train %s (%s): it "
			"decides what to call from memory that would be "
			"shared; predict without --share-malloc, or with a "
			"larger size\n",
			prog, o->share, train[j].nranks, o->train[j], msg);
		return -2;
	}
	return j;
}

static int cmd_predict(int argc, char **argv)
{
	struct opts o;
	struct mpp_profile p;
	struct mpp_placement pl;
	struct mpp_trace skel = {0}, train[32];
	char err[1024], dir[4096], sdir[4200], args[4096] = "", rep[8192];
	char text[13000];
	double t0 = now(), smpi_wall = 0;
	int rc = 2, reused = 0;
	/* the --train trace --share-malloc was checked on, or -1 */
	long shared_by = -1;
	size_t nt = 0;
	mpp_runs rs = {0};
	double work[32] = {0}, wfactor = 1;
	if (parse(argc, argv, &o) || need(o.profile, "--profile") ||
	    (!o.ntrain && need(NULL, "--train")) ||
	    (!o.ranks && need(NULL, "--ranks")))
		return 1;
	if (optind >= argc) {
		fprintf(stderr,
			"%s: predict: the SMPI program is missing "
			"after --\n",
			prog);
		return 1;
	}
	if (mpp_profile_read(o.profile, &p, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	for (int i = optind + 1; i < argc; i++) {
		size_t l = strlen(args);
		snprintf(args + l, sizeof args - l, "%s%s", l ? " " : "",
			 argv[i]);
	}
	/* The target's declared parameters, as the traces got theirs
	 * (collector/trace.c): an input deck's sizes. */
	for (const char *d = getenv("MPIPREDICT_PARAMS"); d && *d;) {
		d += strspn(d, " \t\r\n");
		size_t w = strcspn(d, " \t\r\n"), l = strlen(args);
		if (w)
			snprintf(args + l, sizeof args - l, "%s%.*s",
				 l ? " " : "", (int)w, d);
		d += w;
	}
	for (; nt < o.ntrain; nt++)
		if (mpp_trace_read(o.train[nt], &train[nt], err, sizeof err) <
		    0) {
			fprintf(stderr, "%s: --train: %s\n", prog, err);
			mpp_trace_free(&train[nt]);
			goto out;
		}
	for (size_t i = 0; i < o.nruns; i++)
		if (mpp_runs_read_file(&rs, o.runs[i], runs_warn, NULL, err,
				       sizeof err) != 0) {
			fprintf(stderr, "%s: --runs: %s\n", prog, err);
			rc = 1;
			goto out;
		}
	for (size_t j = 0; o.nruns && j < nt; j++)
		work[j] = work_of(&rs, &train[j]);
	if (workdir(o.keep, dir, sizeof dir) < 0)
		goto out;
	placement(&o, o.ranks, &pl);
	if (mpp_platform_write(&p, &pl, dir, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto clean;
	}
	snprintf(sdir, sizeof sdir, "%s/skeleton", dir);
	if (o.skeleton)
		snprintf(sdir, sizeof sdir, "%s", o.skeleton);
	/* The communication of a rank count and input does not depend on
	 * the placement: a skeleton kept with --skeleton serves every
	 * placement. Its `target` file (ours: under SMPI the trace's own
	 * meta holds SimGrid's arguments too) says which. */
	snprintf(text, sizeof text, "%s/target", sdir);
	if (o.skeleton && access(text, F_OK) == 0) {
		char want[4200], got[4200] = "";
		FILE *f = fopen(text, "r");
		snprintf(want, sizeof want, "ranks %d args %s\n", o.ranks,
			 args);
		if (!f || !fgets(got, sizeof got, f) || strcmp(got, want)) {
			got[strcspn(got, "\n")] = '\0';
			fprintf(stderr,
				"%s: --skeleton %s: a run of '%s', not of "
				"'ranks %d args %s'\n",
				prog, sdir, got, o.ranks, args);
			if (f)
				fclose(f);
			goto clean;
		}
		fclose(f);
		reused = 1;
	} else if (o.share > 0 &&
		   (shared_by = share_check(&o, &p, dir, train, nt, args,
					    argv + optind, &rc)) == -2) {
		goto clean;
	} else if (mpp_smpi_run(dir, o.ranks, argv[optind], argv + optind + 1,
				o.share, sdir, &smpi_wall, err,
				sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		if (o.skeleton)
			rmtree(sdir); /* nothing half-written is reused */
		rc = 3;
		goto clean;
	}
	if (mpp_trace_read(sdir, &skel, err, sizeof err) < 0) {
		fprintf(stderr,
			"%s: the SMPI run left no usable trace (was it linked "
			"with mpp-smpitrace.o?): %s\n",
			prog, err);
		rc = 3;
		goto clean;
	}
	/* SMPI ran each rank from a copy of the program it deleted: its
	 * call sites are the program's */
	mpp_trace_sites(&skel, argv[optind]);
	if (o.skeleton && !reused) {
		FILE *f = fopen(text, "w");
		if (!f || fprintf(f, "ranks %d args %s\n", o.ranks, args) < 0 ||
		    fclose(f) != 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, text,
				strerror(errno));
			goto clean;
		}
	}
	double plain = skel.wall;
	int by = mpp_trace_match_sites(&skel, train, nt);
	if (by == 2)
		snprintf(rep, sizeof rep,
			 "segments: the training traces call MPI only to "
			 "start and stop (one segment each: the whole run's "
			 "law)\n");
	else if (by > 0)
		snprintf(rep, sizeof rep,
			 "segments matched by the source locations of the "
			 "calls around them\n");
	else if (by < 0)
		snprintf(rep, sizeof rep,
			 "segments matched by the names of the calls around "
			 "them (the call sites of the traces and of the SMPI "
			 "build do not match: built alike?)\n");
	else
		snprintf(rep, sizeof rep,
			 "segments matched by the names of the calls around "
			 "them (a trace without call sites: build with -g)\n");
	size_t rl0 = strlen(rep);
	if (mpp_trace_scale(&skel, train, nt, args, o.use_min, rep + rl0,
			    sizeof rep - rl0, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto clean;
	}
	skel.wall = 0;
	if (o.nruns) {
		rl0 = strlen(rep);
		if (mpp_trace_work_cost(&skel, train, nt, work, args, o.use_min,
					&wfactor, rep + rl0, sizeof rep - rl0,
					err, sizeof err) < 0) {
			fprintf(stderr, "%s: %s\n", prog, err);
			goto clean;
		}
	}
	/* The machine's noise, as the training runs at several ranks saw
	 * it: without it no rank of the replay ever waits for a late one.
	 * Not from single-rank traces: a lone rank is late against no one.
	 * Its segments' spread (warm-up, the data an iteration touches) is
	 * in step on every rank of a real run; handed to the ranks from
	 * shifted points it made them wait for each other (miniFE from
	 * 1-rank traces at 2 ranks: +20.6 and +33.2 %, without -1.4 and
	 * +9.8 %; docs/benchmarks.md). */
	const struct mpp_trace *ns[32];
	size_t nsrc = mpp_trace_noise_sources(train, nt, o.ranks, ns, 32);
	int lone = nsrc && ns[0]->nranks < 2;
	size_t nns = o.no_noise || lone ? 0 : nsrc;
	char noise[4400] = "none (--no-noise)";
	json_t *from = nns ? json_array() : json_null();
	if (!o.no_noise && lone)
		snprintf(noise, sizeof noise,
			 "none (the nearest --train traces have one rank: a "
			 "lone rank is late against no one)");
	else if (!o.no_noise && !nns)
		snprintf(noise, sizeof noise,
			 "none (no --train trace at %d ranks or fewer)",
			 o.ranks);
	if (nns) {
		size_t changed = 0, l;
		if (mpp_trace_noise(&skel, ns, nns, &changed, err, sizeof err) <
		    0) {
			fprintf(stderr, "%s: %s\n", prog, err);
			json_decref(from);
			goto clean;
		}
		l = (size_t)snprintf(
		    noise, sizeof noise,
		    "%zu segments reshaped, from %d-rank '%s':", changed,
		    ns[0]->nranks, ns[0]->args);
		for (size_t b = 0; b < nns; b++) {
			const char *d = o.train[ns[b] - train];
			json_array_append_new(from, json_string(d));
			if (l < sizeof noise)
				l += (size_t)snprintf(
				    noise + l, sizeof noise - l, " %s", d);
		}
	}
	size_t rl = strlen(rep);
	snprintf(rep + rl, sizeof rep - rl, "noise: %s\n", noise);
	/* How far beyond the traced rank counts the answer reaches. */
	int tr_hi = 0, tr_lo = 0;
	for (size_t j = 0; j < nt; j++) {
		tr_hi = train[j].nranks > tr_hi ? train[j].nranks : tr_hi;
		tr_lo = !j || train[j].nranks < tr_lo ? train[j].nranks : tr_lo;
	}
	double beyond = o.ranks > tr_hi ? (double)o.ranks / tr_hi : 0;
	rl = strlen(rep);
	if (beyond > 0)
		snprintf(rep + rl, sizeof rep - rl,
			 "extrapolated: x%.3g beyond the largest traced rank "
			 "count (%d ranks traced, %d predicted)\n",
			 beyond, tr_hi, o.ranks);
	else if (o.ranks < tr_lo)
		snprintf(rep + rl, sizeof rep - rl,
			 "extrapolated: below the smallest traced rank count "
			 "(%d ranks traced, %d predicted)\n",
			 tr_lo, o.ranks);
	rl = strlen(rep);
	if (o.share > 0 && !reused)
		snprintf(rep + rl, sizeof rep - rl,
			 "shared allocations: %lld bytes or more, one copy for "
			 "all ranks in the SMPI run (%s)\n",
			 o.share,
			 shared_by >= 0 ? "checked: the same MPI calls as the "
					  "traced run of these arguments"
					: "not checked: no --train trace of "
					  "these arguments");
	/* A law capped: the answer stands (exit 0), the user is told. */
	for (const char *l = rep; *l;) {
		size_t w = strcspn(l, "\n");
		if (!strncmp(l, "warning: ", 9))
			fprintf(stderr, "%s: %.*s\n", prog, (int)w, l);
		l += w + (l[w] == '\n');
	}
	/* The residual: what replaying the nearest training runs missed,
	 * per MPI action, times the target's actions per rank. Beyond the
	 * traced rank counts, the same share of the simulated time instead:
	 * per action, it grew with the neighbours of a 3-D decomposition
	 * while each rank's time fell (miniFE at 4, 16, 64 ranks: 0.51,
	 * 0.88, 1.31 s, of which simulated 0.21, 0.09, 0.06 s). */
	double rper = 0, rfrac = 0, resid = 0, rf_used = NAN;
	size_t rused = 0, nrun = 0;
	struct src_run run[32];
	if (nsrc &&
	    residual_per_action(&p, ns, nsrc, o.use_min, dir, &rper, &rfrac,
				&rused, run, &nrun, err, sizeof err) < 0) {
		fprintf(stderr, "%s: residual: %s\n", prog, err);
		json_decref(from);
		goto clean;
	}
	if (o.no_residual) /* replayed all the same: the interval's runs */
		rper = rfrac = 0, rused = 0;
	double tacts = mpi_actions_per_rank(&skel);
	resid = rper * tacts;
	rl = strlen(rep);
	if (o.no_residual)
		snprintf(rep + rl, sizeof rep - rl,
			 "residual: none (--no-residual)\n");
	else if (!rused)
		snprintf(rep + rl, sizeof rep - rl,
			 "residual: none (no --train trace at 2 to %d ranks "
			 "with MPI actions and a wall time)\n",
			 o.ranks);
	else if (beyond > 0) {
		rf_used = rfrac;
		snprintf(rep + rl, sizeof rep - rl,
			 "residual: %+.1f %% of the simulated time (the time "
			 "beyond the replay of %zu %d-rank '%s' run(s); beyond "
			 "the traced rank counts, not per MPI action)\n",
			 100 * rfrac, rused, ns[0]->nranks, ns[0]->args);
	} else
		snprintf(rep + rl, sizeof rep - rl,
			 "residual: %+.6f s (%+.2f us per MPI action beyond "
			 "the replay of %zu %d-rank '%s' run(s), x %.0f "
			 "actions per rank)\n",
			 resid, 1e6 * rper, rused, ns[0]->nranks, ns[0]->args,
			 tacts);
	/* The interval: the method's answer for the noise's sources (each
	 * one's replay plus the residual rule; their median, or the least
	 * with --repeats min, as the method takes repeats) against their
	 * measured walls, the least and most of the ratios; widened both ways
	 * by the law's error per unit of log distance (at the traced input
	 * nearest the target, from the others) times the target's distance
	 * from that input: nothing at a traced input, more the farther the
	 * answer reaches in sizes or ranks. */
	double band[2] = {1, 1}, av[32], qlo = 1, qhi = 1, lper, ldist, lw = 1;
	size_t lnear;
	char basis[1400];
	for (size_t s = 0; s < nrun; s++)
		av[s] = run[s].sim +
			(beyond > 0 ? rfrac * run[s].sim : rper * run[s].acts);
	if (nrun) {
		gsl_sort(av, 1, nrun);
		double A = o.use_min
			       ? av[0]
			       : gsl_stats_median_from_sorted_data(av, 1, nrun);
		qlo = qhi = run[0].wall / A;
		for (size_t s = 1; s < nrun; s++) {
			qlo = fmin(qlo, run[s].wall / A);
			qhi = fmax(qhi, run[s].wall / A);
		}
	}
	if (mpp_trace_law_error(train, nt, args, o.ranks, o.use_min, &lper,
				&ldist, &lnear) < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		json_decref(from);
		goto clean;
	}
	if (isfinite(lper))
		lw = exp(lper * ldist);
	band[0] = fmin(1, qlo) / lw;
	band[1] = fmax(1, qhi) * lw;
	rl = nrun ? (size_t)snprintf(basis, sizeof basis,
				     "walls of %zu %d-rank '%.200s' run(s) "
				     "x%.3f-%.3f of the answer for them",
				     nrun, ns[0]->nranks, ns[0]->args, qlo, qhi)
		  : (size_t)snprintf(basis, sizeof basis,
				     "no --train run at %d ranks or fewer to "
				     "compare",
				     o.ranks);
	if (isfinite(lper))
		snprintf(basis + rl, sizeof basis - rl,
			 "; law x%.3f: its error at %d-rank '%.200s' from "
			 "the other inputs, %.3g per log unit, x %.3g to the "
			 "target",
			 lw, train[lnear].nranks, train[lnear].args, lper,
			 ldist);
	else
		snprintf(basis + rl, sizeof basis - rl,
			 "; law unchecked (no second training input to "
			 "check it from)");
	/* A reused skeleton's own time is of the placement it was run on:
	 * no plain SMPI figure for this one (replay the skeleton for it). */
	json_t *extra = json_pack(
	    "{s:o,s:f,s:s,s:b,s:o,s:o,s:f,s:o}", "plain_smpi_s",
	    reused ? json_null() : json_real(plain), "smpi_run_wall_s",
	    smpi_wall, "args", args, "skeleton_reused", reused, "noise_from",
	    from, "work_factor", o.nruns ? json_real(wfactor) : json_null(),
	    "residual_s", resid, "residual_per_action_s",
	    rused ? json_real(rper) : json_null());
	json_object_set_new(extra, "residual_fraction",
			    rused ? json_real(rfrac) : json_null());
	json_object_set_new(extra, "extrapolated_ranks",
			    beyond > 0 ? json_real(beyond) : json_null());
	json_object_set_new(extra, "capped",
			    json_boolean(strstr(rep, "warning: ") != NULL));
	json_object_set_new(extra, "shared_malloc_bytes",
			    o.share > 0 && !reused ? json_integer(o.share)
						   : json_null());
	json_object_set_new(extra, "shared_malloc_checked_on",
			    shared_by >= 0 ? json_string(o.train[shared_by])
					   : json_null());
	if (reused)
		snprintf(text, sizeof text,
			 "skeleton reused from %s (no SMPI run)\n"
			 "computation scaled from %zu training trace(s):\n%s",
			 sdir, nt, rep);
	else
		snprintf(text, sizeof text,
			 "plain SMPI (online)  %.6f s simulated, %.3f s wall\n"
			 "computation scaled from %zu training trace(s):\n%s",
			 plain, smpi_wall, nt, rep);
	rc = replay_and_report(&o, &p, &skel, dir, extra, text, resid, rf_used,
			       band, basis);
	json_decref(extra);
	if (!o.json && rc == 0)
		printf("prediction wall time %.3f s (SMPI run + replay)\n",
		       now() - t0);
clean:
	clean_or_keep(&o, dir, rc);
out:
	for (size_t i = 0; i < nt; i++)
		mpp_trace_free(&train[i]);
	mpp_trace_free(&skel);
	mpp_runs_free(&rs);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("%s %s\n", prog, MPP_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "platform"))
		return cmd_platform(argc, argv);
	if (!strcmp(argv[1], "check-platform"))
		return cmd_check(argc, argv);
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(argc, argv);
	if (!strcmp(argv[1], "predict"))
		return cmd_predict(argc, argv);
	fprintf(stderr, "%s: unknown command '%s' (see --help)\n", prog,
		argv[1]);
	return 1;
}
