/*
 * replay_main.c: mpipredict-replay, a job trace (SWF) replayed through
 * EASY or EASY++ backfilling with requested times, actual run times or the
 * history predictor the daemon uses (history.h). Prints one line of
 * figures (or one JSON object with --json); with --schedule, one line per
 * job for checking the schedule. Exit 0 on success, 1 on a usage error, 2
 * on bad input.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/choose.h"
#include "history/easy.h"
#include "history/history.h"
#include "history/nag.h"
#include "common/status.h"

static const char usage[] =
    "usage: mpipredict-replay [options] TRACE.swf   (- reads stdin)\n"
    "\n"
    "Replay a Standard Workload Format trace through EASY backfilling and\n"
    "print: scheduler, predictions, jobs, AVEbsld, MAE (s), share of jobs\n"
    "under-predicted, mean wait (s), prediction corrections.\n"
    "\n"
    "  --scheduler easy|easy++   FCFS backfilling order, or shortest\n"
    "                            predicted first (default easy)\n"
    "  --pred requested|clairvoyant|tsafrir|ours|learned|online|auto\n"
    "                            (default requested); auto: the\n"
    "                            predictor and corrector chosen from the\n"
    "                            trace (history/choose.h): prints each\n"
    "                            candidate's scores and the choice, then\n"
    "                            replays the choice with EASY++\n"
    "  --margin PCT              auto: a candidate replaces tsafrir/steps\n"
    "                            when its AVEbsld is PCT %% lower on the\n"
    "                            newest half (default 5)\n"
    "  --corrector steps|request|double\n"
    "                            a prediction exceeded grows by Tsafrir's\n"
    "                            steps (default), to the request, or to\n"
    "                            twice itself (capped at the request)\n"
    "  --under X                 learned: an under-prediction weighs X\n"
    "                            times an over-prediction in the fit\n"
    "                            (default 1)\n"
    "  --loss OVER/UNDER/THR[/WEIGHT]\n"
    "                            online: the loss, each side CURVE:G with\n"
    "                            CURVE abs|square|exp; WEIGHT 1, 5logrm,\n"
    "                            5logmr, 11log1rm or 1logmr (default\n"
    "                            square:100/abs:1/60/1, the SC'15 study's)\n"
    "  --guard on|off            learned, online: answer with Tsafrir's rule\n"
    "                            while the learner's error over its last\n"
    "                            64 jobs is above Tsafrir's (default on)\n"
    "  --procs N                 machine size (default: the trace's\n"
    "                            '; MaxProcs: N' header, as the SC'15\n"
    "                            study's simulator, else 100)\n"
    "  --procs-from requested|allocated\n"
    "                            a job's processors: SWF field 8 (the\n"
    "                            request, default, as the SC'15 study),\n"
    "                            else field 5; or field 5, else 8\n"
    "  --oversize clamp|refuse   a job wider than the machine runs on the\n"
    "                            whole machine (default, as the study),\n"
    "                            or the trace is refused (exit 2)\n"
    "  --bound S                 bounded slowdown's bound (default 10)\n"
    "  --limits none|request|ecmwf\n"
    "                            kill a job at its limit: none (default,\n"
    "                            the SC'15 study's replay), the request,\n"
    "                            or ECMWF's mean + 1 sd of the user's\n"
    "                            finished jobs of the same request (at\n"
    "                            most the request); planned with the\n"
    "                            limit (--pred requested only)\n"
    "  --extend-ratios FILE      with --limits: the extension policy, a\n"
    "                            job's end estimated at 90 %% of its limit\n"
    "                            as its run time x the next ratio of FILE\n"
    "                            (one number > 0 a line, '#' comments: a\n"
    "                            predictor's upper bounds / actual times)\n"
    "  --extend-cap-pct P, --extend-cap-s S\n"
    "                            an extension is at most P %% of the limit\n"
    "                            and S s (default 20 and 7200)\n"
    "  --jobs N                  replay the first N jobs only\n"
    "  --schedule FILE           write 'id submit start end procs\n"
    "                            reservation pred' per job\n"
    "  --json                    the figures as one JSON object: scheduler,\n"
    "                            pred, jobs, skipped, no_request,\n"
    "                            procs_differ, clamped, run_cut, avebsld,\n"
    "                            mae_s,\n"
    "                            under, wait_s, corrections\n"
    "  -h, --help                this text\n"
    "  --version                 the version\n"
    "\n"
    "Exit status: 0 done, 1 usage error, 2 the trace cannot be read or\n"
    "replayed.\n";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	fprintf(stderr, "mpipredict-replay: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	return 1;
}

static int count_arg(const char *s, long *out)
{
	char *end;

	*out = strtol(s, &end, 10);
	return *s && !*end && *out > 0;
}

static int write_schedule(const char *path, const mpp_swf_job *jobs,
			  const mpp_easy_job_out *out, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%ld %.0f %.0f %.0f %d %.0f %.0f\n", jobs[k].id,
			jobs[k].submit_s, out[k].start_s, out[k].end_s,
			jobs[k].procs, out[k].reservation_s, out[k].pred_s);
	return fclose(f);
}

/* What the trace's cleaning changed, on stderr, so that no job is
 * replayed otherwise than the trace says without a word (the counts are
 * also in the summary). */
static void report_cleaning(const char *name, const mpp_swf_opts *so,
			    const mpp_swf_counts *sc)
{
	if (sc->machine_header)
		fprintf(stderr,
			"mpipredict-replay: %s: a machine of %d processors, "
			"the trace's MaxProcs (--procs N for another)\n",
			name, sc->machine);
	if (sc->procs_differ)
		fprintf(stderr,
			"mpipredict-replay: %s: %zu jobs were allocated "
			"(field 5) another number of processors than they "
			"requested (field 8); replayed with the %s "
			"(--procs-from %s for the other)\n",
			name, sc->procs_differ,
			so->procs_from == MPP_SWF_PROCS_ALLOCATED ? "allocation"
								  : "request",
			so->procs_from == MPP_SWF_PROCS_ALLOCATED
			    ? "requested"
			    : "allocated");
	if (sc->clamped)
		fprintf(stderr,
			"mpipredict-replay: %s: %zu jobs wider than the "
			"machine's %d processors replayed on the whole machine "
			"(--oversize refuse to refuse the trace)\n",
			name, sc->clamped, sc->machine);
	if (sc->no_request)
		fprintf(stderr,
			"mpipredict-replay: %s: %zu jobs without a requested "
			"time (field 9: -1 or 0) left out, as the SC'15 "
			"study's filter leaves them out\n",
			name, sc->no_request);
	if (sc->run_cut)
		fprintf(stderr,
			"mpipredict-replay: %s: %zu run times above the "
			"job's request cut to the request (killed at the "
			"limit)\n",
			name, sc->run_cut);
}

/* --pred auto: one line per candidate, then the choice. */
static void print_choice(const mpp_choose_result *r)
{
	for (int i = 0; i < MPP_CHOOSE_NCAND; i++) {
		const mpp_choose_score *c = &r->cand[i];
		printf("candidate %s avebsld_old=%.2f avebsld_new=%.2f "
		       "mae_old_s=%.0f mae_new_s=%.0f under_new=%.3f\n",
		       mpp_choose_name(i), c->avebsld_old, c->avebsld_new,
		       c->mae_old_s, c->mae_new_s, c->under_new);
	}
	printf("choice %s challenger=%s champion=%s old=%zu new=%zu\n",
	       mpp_choose_name(r->chosen), mpp_choose_name(r->challenger),
	       mpp_choose_name(r->champion), r->nold, r->nnew);
}

/* The same as one JSON object: {chosen, challenger, champion, old, new,
 * candidates: [{name, avebsld_old, avebsld_new, mae_old_s, mae_new_s,
 * under_new}]}. */
static json_t *choice_json(const mpp_choose_result *r)
{
	json_t *a = json_array();

	for (int i = 0; a && i < MPP_CHOOSE_NCAND; i++) {
		const mpp_choose_score *c = &r->cand[i];
		json_array_append_new(
		    a, json_pack("{s:s, s:f, s:f, s:f, s:f, s:f}", "name",
				 mpp_choose_name(i), "avebsld_old",
				 c->avebsld_old, "avebsld_new", c->avebsld_new,
				 "mae_old_s", c->mae_old_s, "mae_new_s",
				 c->mae_new_s, "under_new", c->under_new));
	}
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:o}", "chosen",
			 mpp_choose_name(r->chosen), "challenger",
			 mpp_choose_name(r->challenger), "champion",
			 mpp_choose_name(r->champion), "old",
			 (json_int_t)r->nold, "new", (json_int_t)r->nnew,
			 "candidates", a);
}

/* The extension policy's ratios: one number > 0 a line, blank lines and
 * '#' comments (whole lines, or after the number) skipped. 0, or MPP_EINVAL
 * with err naming file:line. */
static int read_ratios(const char *path, double **out, size_t *n, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t cap = 0, ln = 0;
	double *v = NULL;

	*n = 0;
	if (!f) {
		snprintf(err, errlen, "%s: cannot open", path);
		return MPP_EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *end;
		ln++;
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		double x = strtod(p, &end);
		end += strspn(end, " \t\r\n");
		if (end == p || (*end && *end != '#') || !(x > 0) ||
		    !isfinite(x)) {
			snprintf(err, errlen,
				 "%s:%zu: '%.*s' is not a ratio > 0 (one "
				 "number a line)",
				 path, ln, (int)strcspn(p, "\n"), p);
			fclose(f);
			free(v);
			return MPP_EINVAL;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			double *g = realloc(v, cap * sizeof(*g));
			if (!g) {
				snprintf(err, errlen, "out of memory");
				fclose(f);
				free(v);
				return MPP_ENOMEM;
			}
			v = g;
		}
		v[(*n)++] = x;
	}
	fclose(f);
	if (!*n) {
		snprintf(err, errlen, "%s: no ratio in it", path);
		free(v);
		return MPP_EINVAL;
	}
	*out = v;
	return MPP_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"scheduler", required_argument, NULL, 's'},
	    {"pred", required_argument, NULL, 'p'},
	    {"corrector", required_argument, NULL, 'c'},
	    {"procs", required_argument, NULL, 'n'},
	    {"under", required_argument, NULL, 'u'},
	    {"loss", required_argument, NULL, 'l'},
	    {"guard", required_argument, NULL, 'g'},
	    {"bound", required_argument, NULL, 'b'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"schedule", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'J'},
	    {"procs-from", required_argument, NULL, 'F'},
	    {"oversize", required_argument, NULL, 'O'},
	    {"margin", required_argument, NULL, 'm'},
	    {"limits", required_argument, NULL, 'L'},
	    {"extend-ratios", required_argument, NULL, 'R'},
	    {"extend-cap-pct", required_argument, NULL, 'P'},
	    {"extend-cap-s", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	mpp_easy_opts o = {
	    .procs = 100, .bound_s = 10, .ext_cap_pct = 20, .ext_cap_s = 7200};
	const char *ratios = NULL;
	double *ratio = NULL;
	mpp_nag_loss loss;
	const char *pred = "requested", *sched = "easy", *schedule = NULL;
	long maxjobs = 0, v;
	mpp_swf_job *jobs;
	mpp_easy_job_out *out = NULL;
	mpp_easy_stats st;
	size_t n;
	mpp_swf_opts so = {0};
	mpp_swf_counts sc;
	int procs_given = 0;
	char err[512];
	FILE *f;
	int c, rc, as_json = 0, is_auto = 0;
	mpp_choose_opts co = {.champion = -1, .margin = -1};
	mpp_choose_result cr;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sched = optarg;
			if (strcmp(sched, "easy") && strcmp(sched, "easy++"))
				return usage_error("--scheduler: '%s' is not "
						   "easy or easy++",
						   optarg);
			o.sjbf = strcmp(sched, "easy++") == 0;
			break;
		case 'p':
			pred = optarg;
			if (strcmp(pred, "requested") == 0)
				o.pred = MPP_EASY_REQUESTED;
			else if (strcmp(pred, "clairvoyant") == 0)
				o.pred = MPP_EASY_CLAIRVOYANT;
			else if (strcmp(pred, "auto") == 0)
				is_auto = 1;
			else if (mpp_hist_method_parse(pred, &o.hist_method) ==
				 0)
				o.pred = MPP_EASY_HISTORY;
			else
				return usage_error("--pred: unknown '%s'",
						   optarg);
			break;
		case 'c':
			if (strcmp(optarg, "steps") == 0)
				o.corrector = MPP_EASY_CORRECT_STEPS;
			else if (strcmp(optarg, "request") == 0)
				o.corrector = MPP_EASY_CORRECT_REQUEST;
			else if (strcmp(optarg, "double") == 0)
				o.corrector = MPP_EASY_CORRECT_DOUBLE;
			else
				return usage_error("--corrector: unknown '%s'",
						   optarg);
			break;
		case 'u': {
			char *end;
			o.under = strtod(optarg, &end);
			if (!*optarg || *end || !(o.under > 0) || o.under > 1e6)
				return usage_error("--under: '%s' is not a "
						   "positive number",
						   optarg);
			break;
		}
		case 'g':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				return usage_error("--guard: '%s' is not on or "
						   "off",
						   optarg);
			o.no_guard = strcmp(optarg, "off") == 0;
			break;
		case 'l':
			if (mpp_nag_loss_parse(optarg, &loss, err, sizeof(err)))
				return usage_error("--loss: %s", err);
			o.loss = &loss;
			break;
		case 'n':
			if (!count_arg(optarg, &v) || v > 1000000000)
				return usage_error("--procs: '%s' is not a "
						   "positive count",
						   optarg);
			o.procs = (int)v;
			procs_given = 1;
			break;
		case 'b':
			if (!count_arg(optarg, &v))
				return usage_error("--bound: '%s' is not a "
						   "positive number of seconds",
						   optarg);
			o.bound_s = (double)v;
			break;
		case 'j':
			if (!count_arg(optarg, &maxjobs))
				return usage_error("--jobs: '%s' is not a "
						   "positive count",
						   optarg);
			break;
		case 'o':
			schedule = optarg;
			break;
		case 'J':
			as_json = 1;
			break;
		case 'F':
			if (strcmp(optarg, "requested") == 0)
				so.procs_from = MPP_SWF_PROCS_REQUESTED;
			else if (strcmp(optarg, "allocated") == 0)
				so.procs_from = MPP_SWF_PROCS_ALLOCATED;
			else
				return usage_error("--procs-from: '%s' is not "
						   "requested or allocated",
						   optarg);
			break;
		case 'O':
			if (strcmp(optarg, "clamp") && strcmp(optarg, "refuse"))
				return usage_error("--oversize: '%s' is not "
						   "clamp or refuse",
						   optarg);
			so.refuse_oversize = strcmp(optarg, "refuse") == 0;
			break;
		case 'm': {
			char *end;
			co.margin = strtod(optarg, &end) / 100;
			if (!*optarg || *end || !(co.margin >= 0) ||
			    co.margin >= 1)
				return usage_error("--margin: '%s' is not a "
						   "percentage in [0, 100)",
						   optarg);
			break;
		}
		case 'L':
			if (strcmp(optarg, "none") == 0)
				o.limits = MPP_EASY_LIMIT_NONE;
			else if (strcmp(optarg, "request") == 0)
				o.limits = MPP_EASY_LIMIT_REQUEST;
			else if (strcmp(optarg, "ecmwf") == 0)
				o.limits = MPP_EASY_LIMIT_ECMWF;
			else
				return usage_error(
				    "--limits: '%s' is not none, "
				    "request or ecmwf",
				    optarg);
			break;
		case 'R':
			ratios = optarg;
			break;
		case 'P':
		case 'S': {
			char *end;
			double x = strtod(optarg, &end);
			if (!*optarg || *end || !(x >= 0) || !isfinite(x))
				return usage_error(
				    "--extend-cap-%s: '%s' is not "
				    "a number >= 0",
				    c == 'P' ? "pct" : "s", optarg);
			*(c == 'P' ? &o.ext_cap_pct : &o.ext_cap_s) = x;
			break;
		}
		case ':':
			return usage_error("%s needs a value",
					   argv[optind - 1]);
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("mpipredict-replay %s\n", MPP_VERSION);
			return 0;
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (ratios && !o.limits)
		return usage_error("--extend-ratios needs --limits request or "
				   "ecmwf");
	if (o.limits && (o.pred != MPP_EASY_REQUESTED || is_auto))
		return usage_error("--limits goes with --pred requested (the "
				   "scheduler plans with the limit)");
	if (optind != argc - 1)
		return usage_error("%s", optind < argc ? "one trace file only"
						       : "no trace file given");
	f = strcmp(argv[optind], "-") ? fopen(argv[optind], "r") : stdin;
	if (!f) {
		fprintf(stderr, "mpipredict-replay: %s: cannot open\n",
			argv[optind]);
		return 2;
	}
	so.machine = o.procs;
	so.machine_from_header = !procs_given;
	rc = mpp_swf_read(f, argv[optind], &so, &jobs, &n, &sc, err,
			  sizeof(err));
	if (f != stdin)
		fclose(f);
	if (rc) {
		fprintf(stderr, "mpipredict-replay: %s\n", err);
		return 2;
	}
	o.procs = sc.machine;
	report_cleaning(argv[optind], &so, &sc);
	if (maxjobs && (size_t)maxjobs < n)
		n = (size_t)maxjobs;
	if (schedule && !(out = calloc(n ? n : 1, sizeof(*out)))) {
		fprintf(stderr, "mpipredict-replay: out of memory\n");
		free(jobs);
		return 2;
	}
	if (is_auto) {
		co.procs = o.procs;
		rc = mpp_choose(jobs, n, &co, &cr, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "mpipredict-replay: %s: %s\n",
				argv[optind], err);
			free(out);
			free(jobs);
			return 2;
		}
		if (!as_json)
			print_choice(&cr);
		o.pred = MPP_EASY_HISTORY;
		o.sjbf = 1;
		sched = "easy++";
		mpp_choose_candidate(cr.chosen, &o.hist_method, &o.corrector);
		pred = mpp_hist_method_name(o.hist_method);
	}
	if (ratios) {
		rc = read_ratios(ratios, &ratio, &o.next_ratio, err,
				 sizeof(err));
		if (rc) {
			fprintf(stderr, "mpipredict-replay: %s\n", err);
			free(out);
			free(jobs);
			return 2;
		}
		o.ext_ratio = ratio;
	}
	rc = mpp_easy_run(jobs, n, &o, out, &st, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "mpipredict-replay: %s: %s\n", argv[optind],
			err);
	} else if (as_json) {
		json_t *o_ = json_pack(
		    "{s:s, s:s+, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, "
		    "s:f, s:I}",
		    "scheduler", sched, "pred", pred,
		    o.pred == MPP_EASY_HISTORY
			? (o.corrector == MPP_EASY_CORRECT_REQUEST  ? "/request"
			   : o.corrector == MPP_EASY_CORRECT_DOUBLE ? "/double"
								    : "/steps")
			: "",
		    "jobs", (json_int_t)st.njobs, "skipped",
		    (json_int_t)sc.skipped, "no_request",
		    (json_int_t)sc.no_request, "procs_differ",
		    (json_int_t)sc.procs_differ, "clamped",
		    (json_int_t)sc.clamped, "run_cut", (json_int_t)sc.run_cut,
		    "avebsld", st.avebsld, "mae_s", st.mae_s, "under",
		    st.under_share, "wait_s", st.mean_wait_s, "corrections",
		    (json_int_t)st.corrections);

		if (o_ && is_auto &&
		    json_object_set_new(o_, "auto", choice_json(&cr)))
			rc = MPP_ENOMEM;
		if (o_ && o.limits &&
		    json_object_set_new(
			o_, "limits",
			json_pack("{s:s, s:I, s:f, s:I, s:I, s:I}", "rule",
				  o.limits == MPP_EASY_LIMIT_ECMWF ? "ecmwf"
								   : "request",
				  "killed", (json_int_t)st.killed,
				  "waste_proc_h", st.waste_ps / 3600,
				  "extended", (json_int_t)st.extended, "saved",
				  (json_int_t)st.saved, "over_cap",
				  (json_int_t)st.over_cap)))
			rc = MPP_ENOMEM;
		if (!o_ || json_dumpf(o_, stdout, JSON_COMPACT) ||
		    putchar('\n') == EOF) {
			fprintf(stderr, "mpipredict-replay: out of memory\n");
			rc = MPP_ENOMEM;
		}
		json_decref(o_);
	}
	if (!rc && !as_json) {
		printf(
		    "%s %s%s jobs=%zu skipped=%zu avebsld=%.2f mae_s=%.0f "
		    "under=%.3f wait_s=%.0f corrections=%zu no_request=%zu "
		    "procs_differ=%zu clamped=%zu run_cut=%zu\n",
		    sched, pred,
		    o.pred == MPP_EASY_HISTORY
			? (o.corrector == MPP_EASY_CORRECT_REQUEST  ? "/request"
			   : o.corrector == MPP_EASY_CORRECT_DOUBLE ? "/double"
								    : "/steps")
			: "",
		    st.njobs, sc.skipped, st.avebsld, st.mae_s, st.under_share,
		    st.mean_wait_s, st.corrections, sc.no_request,
		    sc.procs_differ, sc.clamped, sc.run_cut);
		if (o.limits)
			printf("limits %s: killed=%zu waste_proc_h=%.0f "
			       "extended=%zu saved=%zu over_cap=%zu\n",
			       o.limits == MPP_EASY_LIMIT_ECMWF ? "ecmwf"
								: "request",
			       st.killed, st.waste_ps / 3600, st.extended,
			       st.saved, st.over_cap);
	}
	if (!rc && schedule && write_schedule(schedule, jobs, out, n)) {
		fprintf(stderr, "mpipredict-replay: %s: cannot write\n",
			schedule);
		rc = MPP_EIO;
	}
	free(out);
	free(jobs);
	free(ratio);
	return rc ? 2 : 0;
}
