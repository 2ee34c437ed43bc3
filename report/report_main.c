/*
 * report_main.c: mpipredict-report, one run of a runs file as a person
 * reads it (report/README.md): run time; time in and outside MPI per rank
 * (mean and max over ranks, with small text bars) and the load imbalance;
 * the share of messages and bytes at each level (MCPSim's profile table);
 * the top call sites by bytes and by time; modelled (LogGPS, with the
 * store's machine profile) vs measured time in MPI. --json gives the same
 * as one JSON object.
 *
 * Exit 0 ok, 1 usage, 2 bad input (one line on stderr naming the file,
 * row or column). Not for: training or predicting (regress/).
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regress/comm_feature.h"
#include "regress/loggps.h"
#include "regress/profile_json.h"
#include "regress/runs.h"
#include "schema/store.h"

static const char usage[] =
    "usage: mpipredict-report RUNS.csv [--run ID] [--json] [--db FILE] "
    "[--top N]\n"
    "Show one run of a runs file (default: its last row): run time, time "
    "in MPI\n"
    "and load balance per rank, messages and bytes per level (cmp, socket, "
    "net),\n"
    "the top call sites by bytes and by time, and modelled vs measured "
    "MPI time.\n"
    "  --run ID    the run_id to show\n"
    "  --json      one JSON object instead of text\n"
    "  --db FILE   store holding the machine profile (mpipredict-calibrate;"
    "\n"
    "              default $MPIPREDICT_DB, else ./models.db when it "
    "exists;\n"
    "              never created)\n"
    "  --top N     call sites listed (default 5)\n"
    "  -h, --help  this text\n"
    "  --version   the version\n"
    "Exit status: 0 done, 1 usage error, 2 the runs file or the store "
    "(named\n"
    "by --db or $MPIPREDICT_DB) is missing or unreadable.\n";

static void warn_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "mpipredict-report: %s\n", msg);
}

/* The value of column name (NAN when the file has no such column). */
static double col(const mpp_runs *rs, size_t r, const char *name)
{
	size_t f;

	for (f = 0; f < rs->nfeatures; f++)
		if (!strcmp(rs->features[f], name))
			return rs->runs[r].values[f];
	return NAN;
}

static double colf(const mpp_runs *rs, size_t r, const char *a, const char *b,
		   const char *c)
{
	char name[512];

	snprintf(name, sizeof name, "%s%s%s", a, b, c);
	return col(rs, r, name);
}

struct site {
	const char *name; /* "<file>:<line>:<col>:<fn>" */
	double calls, bytes, time_s;
};

static int by_bytes(const void *x, const void *y)
{
	double a = ((const struct site *)x)->bytes,
	       b = ((const struct site *)y)->bytes;
	return (a < b) - (a > b);
}

static int by_time(const void *x, const void *y)
{
	double a = ((const struct site *)x)->time_s,
	       b = ((const struct site *)y)->time_s;
	return (a < b) - (a > b);
}

/* The call sites of run r: every "call:<site>.mean" column. */
static struct site *sites_of(const mpp_runs *rs, size_t r, size_t *n)
{
	struct site *v = calloc(rs->nfeatures + 1, sizeof *v);
	size_t f, len;

	*n = 0;
	for (f = 0; v && f < rs->nfeatures; f++) {
		const char *c = rs->features[f];

		len = strlen(c);
		if (strncmp(c, "call:", 5) || len < 10 ||
		    strcmp(c + len - 5, ".mean"))
			continue;
		v[*n].name = c + 5;
		v[*n].calls = rs->runs[r].values[f];
		(*n)++;
	}
	for (f = 0; v && f < *n; f++) {
		char name[4096];
		size_t l = strlen(v[f].name) - 5;

		snprintf(name, sizeof name, "bytes:%.*s.mean", (int)l,
			 v[f].name);
		v[f].bytes = col(rs, r, name);
		snprintf(name, sizeof name, "time:%.*s.mean", (int)l,
			 v[f].name);
		v[f].time_s = col(rs, r, name) * 1e-9;
	}
	return v;
}

static void bar(double frac, char *out, size_t width)
{
	size_t i, k = isnan(frac) || frac < 0
			  ? 0
			  : (size_t)(frac * (double)width + 0.5);

	if (k > width)
		k = width;
	for (i = 0; i < width; i++)
		out[i] = i < k ? '#' : '.';
	out[width] = '\0';
}

/* One rank's times from the collector's sidecar (collector/README.md):
 * <dir>/ranks/<stem>.csv beside the runs file <dir>/<stem>.csv, lines
 * run_id,rank,time:in_mpi,time:outside_mpi,time:mpi_init (nanoseconds). */
struct rank_time {
	long rank;
	double in_s, out_s, init_s;
};

/* The lines of run_id in the sidecar of the runs file `path`, in file
 * order (the collector writes them by rank), into *out (malloc'ed; *n of them).
 * 0 (with *n == 0 when there is no sidecar or no line of the run), or -1 with
 * err naming the file and line that is not of that shape. */
static int read_rank_times(const char *path, const char *run_id,
			   struct rank_time **out, size_t *n, char *err,
			   size_t errlen)
{
	size_t len = strlen(path), cap = 0, lineno = 0, idlen = strlen(run_id);
	char *side, line[512];
	FILE *f;

	*out = NULL;
	*n = 0;
	if (len < 4 || strcmp(path + len - 4, ".csv") ||
	    !(side = malloc(len + 16)))
		return 0;
	{
		const char *slash = strrchr(path, '/');
		size_t d = slash ? (size_t)(slash - path) + 1 : 0;
		memcpy(side, path, d);
		strcpy(side + d, "ranks/");
		strcat(side, path + d);
	}
	if (!(f = fopen(side, "r"))) {
		free(side);
		return 0;
	}
	while (fgets(line, sizeof line, f)) {
		struct rank_time t;
		char *p, *end;
		double v[3];

		if (++lineno == 1)
			continue; /* the header */
		if (strncmp(line, run_id, idlen) || line[idlen] != ',')
			continue;
		p = line + idlen + 1;
		t.rank = strtol(p, &end, 10);
		for (int k = 0; k < 3 && end != p && *end == ','; k++) {
			p = end + 1;
			v[k] = strtod(p, &end) * 1e-9;
		}
		if (end == p || (*end != '\n' && *end != '\0') || t.rank < 0) {
			snprintf(err, errlen,
				 "%s:%zu: expected run_id,rank,time:in_mpi,"
				 "time:outside_mpi,time:mpi_init",
				 side, lineno);
			fclose(f);
			free(side);
			free(*out);
			*out = NULL;
			*n = 0;
			return -1;
		}
		t.in_s = v[0];
		t.out_s = v[1];
		t.init_s = v[2];
		if (*n == cap) {
			struct rank_time *g = realloc(
			    *out, (cap = cap ? 2 * cap : 16) * sizeof(*g));
			if (!g)
				break;
			*out = g;
		}
		(*out)[(*n)++] = t;
	}
	fclose(f);
	free(side);
	return 0;
}

/* in MPI as '#', outside as '=', the rest of the run time '.'. */
static void bar2(double in, double outside, char *out, size_t width)
{
	char a[81], b[81];

	bar(in, a, width);
	bar(in + outside, b, width);
	for (size_t i = 0; i < width; i++)
		out[i] = a[i] == '#' ? '#' : b[i] == '#' ? '=' : '.';
	out[width] = '\0';
}

/* At most this many ranks get a bar in the text output. */
#define RANK_BARS 64

static double pct(double part, double whole)
{
	return whole > 0 ? 100 * part / whole : NAN;
}

/* The newest machine profile of db into *p; 0, 1 when there is none (or
 * no store), -1 after printing why it is unreadable. */
static int load_profile(const char *db, int explicit_db, mpp_loggps_profile *p)
{
	mpp_store *s = NULL;
	char err[512], *text = NULL;
	int rc;

	if (!explicit_db && access(db, R_OK) != 0)
		return 1;
	if (mpp_store_open_existing(db, MPP_STORE_READONLY, &s, err,
				    sizeof err)) {
		fprintf(stderr, "mpipredict-report: %s\n", err);
		return -1;
	}
	rc = mpp_store_load_profile(s, NULL, &text, err, sizeof err);
	mpp_store_close(s);
	if (rc == MPP_ENOTFOUND)
		return 1;
	if (rc) {
		fprintf(stderr, "mpipredict-report: %s: %s\n", db, err);
		return -1;
	}
	rc = mpp_profile_from_json(db, text, p, err, sizeof err);
	free(text);
	if (rc) {
		fprintf(stderr, "mpipredict-report: machine profile in %s\n",
			err);
		return -1;
	}
	return 0;
}

static json_t *num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"run", required_argument, 0, 'r'},
	    {"json", no_argument, 0, 'j'},
	    {"db", required_argument, 0, 'd'},
	    {"top", required_argument, 0, 't'},
	    {"help", no_argument, 0, 'h'},
	    {"version", no_argument, 0, 'V'},
	    {0, 0, 0, 0},
	};
	const char *run_id = NULL, *db = NULL, *path;
	mpp_runs rs = {0};
	mpp_loggps_profile prof = {0};
	mpp_loggps_traffic tr;
	struct site *sites = NULL;
	size_t r, nsites = 0, i;
	char err[512], bars[4][41], *end;
	int c, as_json = 0, explicit_db = 0, top = 5, rc = 0, have_prof;
	double rt, in_mean, in_max, out_mean, out_max, imb, modelled = NAN;
	double init_mean, init_max, rss_mean, rss_max;
	struct rank_time *ranks = NULL;
	size_t nranks = 0;
	double msgs[MPP_NLV], bytes[MPP_NLV], cmsgs[MPP_NLV], cbytes[MPP_NLV];
	double tm = 0, tb = 0, tcm = 0, tcb = 0;
	const char *model_note = "";

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1)
		switch (c) {
		case 'r':
			run_id = optarg;
			break;
		case ':':
			fprintf(stderr,
				"mpipredict-report: %s needs a value (see "
				"--help)\n",
				argv[optind - 1]);
			return 1;
		case 'j':
			as_json = 1;
			break;
		case 'd':
			db = optarg;
			explicit_db = 1;
			break;
		case 't':
			top = (int)strtol(optarg, &end, 10);
			if (*end || top < 1 || top > 1000) {
				fprintf(stderr,
					"mpipredict-report: --top %s: expected "
					"an integer from 1 to 1000 (see "
					"--help)\n",
					optarg);
				return 1;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("mpipredict-report %s\n", MPP_VERSION);
			return 0;
		default:
			fprintf(stderr,
				"mpipredict-report: unknown option %s (see "
				"--help)\n",
				argv[optind - 1]);
			return 1;
		}
	/* A store the user named (--db or $MPIPREDICT_DB) must be there;
	 * ./models.db is only used when it is. */
	explicit_db = explicit_db ||
		      (getenv("MPIPREDICT_DB") && *getenv("MPIPREDICT_DB"));
	db = mpp_store_default_path(db);
	if (argc - optind != 1) {
		fprintf(stderr, "mpipredict-report: %s (see --help)\n",
			argc == optind ? "no runs file given"
				       : "give exactly one runs file");
		return 1;
	}
	/* A named store that is not there is said before the runs are read,
	 * in the words every command uses (schema/store.h). */
	if (explicit_db && access(db, F_OK) != 0) {
		mpp_store *s = NULL;

		mpp_store_open_existing(db, MPP_STORE_READONLY, &s, err,
					sizeof err);
		mpp_store_close(s);
		fprintf(stderr, "mpipredict-report: %s\n", err);
		return 2;
	}
	path = argv[optind];
	if (mpp_runs_read_file(&rs, path, warn_stderr, NULL, err, sizeof err)) {
		fprintf(stderr, "mpipredict-report: %s\n", err);
		return 2;
	}
	r = rs.nruns - 1;
	if (run_id) {
		for (r = 0; r < rs.nruns && strcmp(rs.runs[r].run_id, run_id);
		     r++)
			;
		if (r == rs.nruns) {
			fprintf(stderr, "mpipredict-report: %s: no run %s\n",
				path, run_id);
			rc = 2;
			goto out;
		}
	}
	in_mean = col(&rs, r, "time:in_mpi.mean") * 1e-9;
	if (isnan(in_mean)) {
		fprintf(stderr,
			"mpipredict-report: %s: no column time:in_mpi.mean "
			"(rows of a collector before time in MPI)\n",
			path);
		rc = 2;
		goto out;
	}
	rt = rs.runs[r].runtime_s;
	in_max = col(&rs, r, "time:in_mpi.max") * 1e-9;
	init_mean = col(&rs, r, "time:mpi_init.mean") * 1e-9;
	init_max = col(&rs, r, "time:mpi_init.max") * 1e-9;
	out_mean = col(&rs, r, "time:outside_mpi.mean") * 1e-9;
	out_max = col(&rs, r, "time:outside_mpi.max") * 1e-9;
	imb = out_mean > 0 ? out_max / out_mean : NAN;
	/* KiB in the row; NaN in rows of a collector before it. */
	rss_mean = col(&rs, r, "mem:peak_rss_kib.mean") / 1024;
	rss_max = col(&rs, r, "mem:peak_rss_kib.max") / 1024;
	if (read_rank_times(path, rs.runs[r].run_id, &ranks, &nranks, err,
			    sizeof err)) {
		fprintf(stderr, "mpipredict-report: %s\n", err);
		rc = 2;
		goto out;
	}
	for (i = 0; i < MPP_NLV; i++) {
		msgs[i] = colf(&rs, r, "comm:", mpp_lv_names[i], ":msgs.mean");
		bytes[i] =
		    colf(&rs, r, "comm:", mpp_lv_names[i], ":bytes.mean");
		cmsgs[i] = colf(&rs, r, "coll:", mpp_lv_names[i], ":msgs.mean");
		cbytes[i] =
		    colf(&rs, r, "coll:", mpp_lv_names[i], ":bytes.mean");
		tm += msgs[i], tb += bytes[i], tcm += cmsgs[i],
		    tcb += cbytes[i];
	}
	sites = sites_of(&rs, r, &nsites);
	if (!sites) {
		fprintf(stderr, "mpipredict-report: out of memory\n");
		rc = 2;
		goto out;
	}
	have_prof = load_profile(db, explicit_db, &prof);
	if (have_prof < 0) {
		rc = 2;
		goto out;
	}
	if (have_prof == 1)
		model_note = "no machine profile (run mpipredict-calibrate)";
	else if (mpp_comm_traffic(&rs, r, &tr) < 0)
		model_note = "the row has no per-level traffic columns";
	else {
		int rpn = rs.runs[r].nnodes > 0
			      ? (int)ceil(rs.runs[r].nprocs / rs.runs[r].nnodes)
			      : 1;
		if (mpp_loggps_comm_s(&prof, &tr, (int)rs.runs[r].nprocs, rpn,
				      &modelled, err, sizeof err) < 0) {
			modelled = NAN;
			model_note = err;
		}
	}

	if (as_json) {
		json_t *d = json_object(), *lv = json_object(),
		       *sb = json_array(), *st = json_array();

		json_object_set_new(d, "run_id",
				    json_string(rs.runs[r].run_id));
		json_object_set_new(d, "app", json_string(rs.runs[r].app));
		json_object_set_new(
		    d, "nprocs", json_integer((json_int_t)rs.runs[r].nprocs));
		json_object_set_new(
		    d, "nnodes", json_integer((json_int_t)rs.runs[r].nnodes));
		json_object_set_new(d, "args", json_string(rs.runs[r].args));
		json_object_set_new(d, "runtime_s", json_real(rt));
		json_object_set_new(d, "mpi_s",
				    json_pack("{s:o,s:o}", "mean", num(in_mean),
					      "max", num(in_max)));
		json_object_set_new(d, "mpi_init_s",
				    json_pack("{s:o,s:o}", "mean",
					      num(init_mean), "max",
					      num(init_max)));
		json_object_set_new(d, "outside_mpi_s",
				    json_pack("{s:o,s:o}", "mean",
					      num(out_mean), "max",
					      num(out_max)));
		json_object_set_new(d, "load_imbalance", num(imb));
		json_object_set_new(d, "peak_rss_mib",
				    json_pack("{s:o,s:o}", "mean",
					      num(rss_mean), "max",
					      num(rss_max)));
		/* Per rank, from the collector's sidecar; null without. */
		json_t *jr = nranks ? json_array() : json_null();
		for (size_t k = 0; k < nranks; k++)
			json_array_append_new(
			    jr, json_pack("{s:I,s:o,s:o,s:o}", "rank",
					  (json_int_t)ranks[k].rank, "in_mpi_s",
					  num(ranks[k].in_s), "outside_mpi_s",
					  num(ranks[k].out_s), "mpi_init_s",
					  num(ranks[k].init_s)));
		json_object_set_new(d, "ranks", jr);
		for (i = 0; i < MPP_NLV; i++)
			json_object_set_new(
			    lv, mpp_lv_names[i],
			    json_pack(
				"{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "msgs",
				num(msgs[i]), "bytes", num(bytes[i]),
				"msgs_pct", num(pct(msgs[i], tm)), "bytes_pct",
				num(pct(bytes[i], tb)), "coll_calls",
				num(cmsgs[i]), "coll_bytes", num(cbytes[i]),
				"coll_calls_pct", num(pct(cmsgs[i], tcm)),
				"coll_bytes_pct", num(pct(cbytes[i], tcb))));
		json_object_set_new(d, "levels", lv);
		qsort(sites, nsites, sizeof *sites, by_bytes);
		for (i = 0; i < nsites && i < (size_t)top; i++)
			json_array_append_new(
			    sb,
			    json_pack("{s:s%,s:o,s:o,s:o}", "site",
				      sites[i].name, strlen(sites[i].name) - 5,
				      "calls", num(sites[i].calls), "bytes",
				      num(sites[i].bytes), "time_s",
				      num(sites[i].time_s)));
		qsort(sites, nsites, sizeof *sites, by_time);
		for (i = 0; i < nsites && i < (size_t)top; i++)
			json_array_append_new(
			    st,
			    json_pack("{s:s%,s:o,s:o,s:o}", "site",
				      sites[i].name, strlen(sites[i].name) - 5,
				      "calls", num(sites[i].calls), "bytes",
				      num(sites[i].bytes), "time_s",
				      num(sites[i].time_s)));
		json_object_set_new(d, "top_by_bytes", sb);
		json_object_set_new(d, "top_by_time", st);
		json_object_set_new(d, "model",
				    json_pack("{s:o,s:o,s:o,s:s}",
					      "modelled_mpi_s", num(modelled),
					      "measured_mpi_s", num(in_mean),
					      "ratio", num(modelled / in_mean),
					      "note", model_note));
		json_dumpf(d, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		printf("\n");
		json_decref(d);
		goto out;
	}
	printf("run %s  app %s  %g ranks on %g node%s  args \"%s\"\n",
	       rs.runs[r].run_id, rs.runs[r].app, rs.runs[r].nprocs,
	       rs.runs[r].nnodes, rs.runs[r].nnodes == 1 ? "" : "s",
	       rs.runs[r].args);
	printf("run time %.6f s (slowest rank)\n\n", rt);
	printf("time per rank         seconds   share of the run time\n");
	bar(in_mean / rt, bars[0], 40);
	bar(in_max / rt, bars[1], 40);
	bar(out_mean / rt, bars[2], 40);
	bar(out_max / rt, bars[3], 40);
	printf("  in MPI, mean     %10.6f   |%s| %5.1f %%\n", in_mean, bars[0],
	       pct(in_mean, rt));
	printf("  in MPI, max      %10.6f   |%s| %5.1f %%\n", in_max, bars[1],
	       pct(in_max, rt));
	printf("  MPI_Init, mean   %10.6f   (max %.6f)\n", init_mean, init_max);
	printf("  outside, mean    %10.6f   |%s| %5.1f %%\n", out_mean, bars[2],
	       pct(out_mean, rt));
	printf("  outside, max     %10.6f   |%s| %5.1f %%\n", out_max, bars[3],
	       pct(out_max, rt));
	printf("  load imbalance (max / mean of the time outside MPI): %.3f\n",
	       imb);
	if (isnan(rss_mean))
		printf("  peak memory per rank: not recorded (rows of a "
		       "collector before it)\n\n");
	else
		printf("  peak memory per rank: mean %.1f MiB, max %.1f MiB "
		       "(resident, MPI library included)\n\n",
		       rss_mean, rss_max);
	if (nranks) {
		char b[41];
		printf(
		    "each rank (# in MPI, = outside MPI, of the run time)\n");
		for (size_t k = 0; k < nranks && k < RANK_BARS; k++) {
			bar2(ranks[k].in_s / rt, ranks[k].out_s / rt, b, 40);
			printf("  rank %5ld  |%s| in %10.6f  out %10.6f\n",
			       ranks[k].rank, b, ranks[k].in_s, ranks[k].out_s);
		}
		if (nranks > RANK_BARS)
			printf("  (%zu more ranks: --json lists them all)\n",
			       nranks - RANK_BARS);
		printf("\n");
	}
	printf("traffic per rank by level (mean over ranks)\n");
	printf("  level    p2p msgs  %%msgs      p2p bytes  %%bytes   coll "
	       "calls  %%calls     coll bytes\n");
	for (i = 0; i < MPP_NLV; i++)
		printf("  %-6s %10.0f %6.1f %14.0f %6.1f %12.0f %6.1f %14.0f\n",
		       mpp_lv_names[i], msgs[i], pct(msgs[i], tm), bytes[i],
		       pct(bytes[i], tb), cmsgs[i], pct(cmsgs[i], tcm),
		       cbytes[i]);
	printf("\ntop call sites by bytes (mean per rank)\n");
	qsort(sites, nsites, sizeof *sites, by_bytes);
	for (i = 0; i < nsites && i < (size_t)top; i++)
		printf("  %14.0f B %10.6f s %10.0f calls  %.*s\n",
		       sites[i].bytes, sites[i].time_s, sites[i].calls,
		       (int)strlen(sites[i].name) - 5, sites[i].name);
	printf("\ntop call sites by time in MPI (mean per rank)\n");
	qsort(sites, nsites, sizeof *sites, by_time);
	for (i = 0; i < nsites && i < (size_t)top; i++)
		printf("  %10.6f s %14.0f B %10.0f calls  %.*s\n",
		       sites[i].time_s, sites[i].bytes, sites[i].calls,
		       (int)strlen(sites[i].name) - 5, sites[i].name);
	if (!nsites)
		printf("  (no instrumented call sites)\n");
	printf("\nMPI time per rank: measured %.6f s (mean)", in_mean);
	if (isnan(modelled))
		printf(", modelled: %s\n", model_note);
	else
		printf(", modelled %.6f s (LogGPS, profile %s of %s), ratio "
		       "%.3f\n",
		       modelled, prof.machine, prof.created_at,
		       modelled / in_mean);
out:
	free(sites);
	free(ranks);
	mpp_loggps_profile_clear(&prof);
	mpp_runs_free(&rs);
	return rc;
}
