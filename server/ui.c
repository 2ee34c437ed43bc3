/*
 * ui.c: the staff page's views (see ui.h), rendered from one snapshot.
 *
 *   /                 models: each app's active model, then every version,
 *                     then the newest model events (promoted, rejected,
 *                     drift, admin steps)
 *   /ui/accuracy      predicted vs actual per app and overall, error over
 *                     time, and a summary table (?app=NAME: one app)
 *   /ui/users         requested vs actual time per user (over-request
 *                     factor) and the node-hours a limit at the predicted
 *                     upper bound would have freed
 *   /ui/predictions   the last predictions: basis, interval, outcome
 *
 * Every number in a table is printed from the snapshot as stored (seconds
 * shown as hours with one decimal, factors with two), so a test can check
 * them against a query of the store. The page carries a strict
 * Content-Security-Policy (no script, nothing fetched).
 *
 * Not for: reading the store (ui_data.c) or drawing (ui_svg.c).
 */
#include "server/ui.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/progress.h"
#include "server/ui_svg.h"

enum view { V_MODELS, V_ACCURACY, V_USERS, V_PREDICTIONS, V_NONE };

static const struct {
	const char *path, *title;
} views[] = {
    {"/", "Models"},
    {"/ui/accuracy", "Accuracy"},
    {"/ui/users", "Users"},
    {"/ui/predictions", "Recent predictions"},
};

static enum view view_of(const char *path)
{
	for (int v = 0; v < V_NONE; v++)
		if (strcmp(path, views[v].path) == 0)
			return (enum view)v;
	return V_NONE;
}

int mpp_ui_path(const char *path)
{
	return view_of(path) != V_NONE;
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2733;"
    "background:#f6f7f9}header{background:#1d3557;color:#fff;padding:10px "
    "20px;display:flex;gap:24px;align-items:baseline}header b{font-size:"
    "17px}header a{color:#cfe0f5;text-decoration:none}header "
    "a.on{color:#fff;border-bottom:2px solid #fff}main{padding:12px 20px}"
    "h2{font-size:16px;margin:18px 0 6px}table{border-collapse:collapse;"
    "background:#fff;margin-bottom:8px}th,td{padding:3px 9px;border-bottom:"
    "1px solid #e3e6ea;text-align:left;white-space:nowrap}th{background:"
    "#eef1f5;font-weight:600}td.n{text-align:right;font-variant-numeric:"
    "tabular-nums}.note{color:#5a6775;max-width:900px}.late{color:#c0392b;"
    "font-weight:600}.charts{display:flex;flex-wrap:wrap;gap:12px}svg."
    "chart{background:#fff;border:1px solid #e3e6ea}.plot{fill:none;stroke:"
    "#c9ced6}.grid{stroke:#eceff3}.tick{font-size:11px;fill:#5a6775}.axis{"
    "font-size:12px;fill:#1d2733}.identity{stroke:#1d2733;stroke-width:1.2;"
    "stroke-dasharray:4 3}.band{fill:#2a9d8f;fill-opacity:.15;stroke:none}"
    "circle.pt,circle.ept{fill:#1d6fb8;fill-opacity:.7}circle.late{fill:"
    "#c0392b}circle.clamped{fill:#fff;stroke:#1d6fb8}circle.late.clamped{"
    "stroke:#c0392b}.terms{max-width:"
    "420px;overflow:hidden;text-overflow:ellipsis;color:#5a6775}";

static void head(FILE *f, enum view v, int users)
{
	fprintf(
	    f,
	    "<!DOCTYPE html><html lang=\"en\"><head><meta "
	    "charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" "
	    "content=\"default-src 'none'; style-src 'unsafe-inline'; "
	    "img-src data:\"><link rel=\"icon\" href=\"data:,\"><title>"
	    "mpipredict: %s</title><style>%s</style></head><body><header>"
	    "<b>mpipredict</b>",
	    views[v].title, style);
	for (int k = 0; k < V_NONE; k++) {
		if (k == V_USERS && !users)
			continue;
		fprintf(f, "<a href=\"%s\"%s>%s</a>", views[k].path,
			k == (int)v ? " class=\"on\"" : "", views[k].title);
	}
	fputs("</header><main>", f);
}

static void date(FILE *f, double t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];
	gmtime_r(&tt, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
	fputs(buf, f);
}

static void cell_text(FILE *f, const char *s)
{
	fputs("<td>", f);
	mpp_html_text(f, s ? s : "");
	fputs("</td>", f);
}

static void model_row(FILE *f, const mpp_ui_model *m, int with_app)
{
	fprintf(f, "<tr data-model=\"%lld\">", m->id);
	if (with_app)
		cell_text(f, m->app);
	fprintf(f, "<td class=\"n\">%lld</td><td>", m->version);
	date(f, m->created_at);
	fprintf(f, "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>",
		m->ntrain, m->nterms);
	/* Inside the training ranges, then past them (x_mape). */
	for (int k = 0; k < 2; k++) {
		double e = k ? m->x_mape : m->cv_mape;
		if (isnan(e))
			fputs("<td class=\"n\">-</td>", f);
		else
			fprintf(f, "<td class=\"n\">%.1f</td>", e);
	}
	fprintf(f,
		"<td class=\"n\">%.0f%%&ndash;%.0f%%</td><td "
		"class=\"n\">%.0f</td>",
		m->rel_lo * 100, m->rel_hi * 100, m->coverage * 100);
	cell_text(f, m->method);
	fputs("<td class=\"terms\">", f);
	mpp_html_text(f, m->terms ? m->terms : "");
	fputs("</td></tr>", f);
}

static const char model_cols[] =
    "<th>version</th><th>trained (UTC)</th><th>runs</th><th>kept "
    "terms</th><th>CV error %</th><th title=\"measured by training's "
    "extrapolation checks\">error past the range %</th><th>interval</th>"
    "<th>coverage %</th>"
    "<th>method</th><th>terms</th></tr>";

static void page_models(FILE *f, const mpp_ui_data *d)
{
	fputs("<h2>Active models</h2><p class=\"note\">One per application: "
	      "what the daemon predicts with now. CV error: the mean absolute "
	      "percentage error of a cross-validation, for jobs inside the "
	      "training range. Error past the range: the same, measured by "
	      "training on part of the runs and predicting the largest ones; "
	      "a job bigger than any trained errs more. Interval: lower and "
	      "upper bound as a share of the prediction, for the coverage "
	      "shown.</p><table id=\"active\"><tr><th>app</th>",
	      f);
	fputs(model_cols, f);
	for (size_t i = 0; i < d->nmodels; i++)
		if (d->models[i].active)
			model_row(f, &d->models[i], 1);
	fputs("</table><h2>All versions</h2><table id=\"versions\"><tr>"
	      "<th>app</th>",
	      f);
	fputs(model_cols, f);
	for (size_t i = 0; i < d->nmodels; i++) {
		model_row(f, &d->models[i], 1);
	}
	fputs("</table>", f);
	if (d->nmodels == 0)
		fputs("<p class=\"note\">No model yet: train one with "
		      "mpipredict-train.</p>",
		      f);
	fputs("<h2>Model events</h2><p class=\"note\">Newest first: each "
	      "training's outcome (promoted; rejected: it erred more than the "
	      "active model on held-back runs; drift: its answers moved beyond "
	      "both intervals, held until an admin promotes it; failed) and "
	      "each admin step (mpipredict-model promote, rollback).</p>"
	      "<table id=\"events\"><tr><th>when (UTC)</th><th>app</th>"
	      "<th>version</th><th>event</th><th>reason</th></tr>",
	      f);
	for (size_t i = 0; i < d->nevents; i++) {
		const mpp_ui_event *e = &d->events[i];
		fprintf(f, "<tr class=\"ev-%s\"><td>", e->kind ? e->kind : "");
		date(f, e->at);
		fputs("</td>", f);
		cell_text(f, e->app);
		if (e->version >= 0)
			fprintf(f, "<td class=\"n\">%lld</td>", e->version);
		else
			fputs("<td class=\"n\">-</td>", f);
		cell_text(f, e->kind);
		cell_text(f, e->reason);
		fputs("</tr>", f);
	}
	fputs("</table>", f);
	if (d->nevents == 0)
		fputs("<p class=\"note\">No model event yet.</p>", f);
	mpp_progress_page(f); /* running jobs, from memory (progress.h) */
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One row of the accuracy summary over the points keep[] selects. */
static void summary_row(FILE *f, const char *app, const mpp_ui_pred *p,
			size_t n, const unsigned char *keep)
{
	size_t m = 0, within = 0, late = 0;
	double *err = malloc((n ? n : 1) * sizeof *err);
	for (size_t i = 0; i < n; i++) {
		if (keep && !keep[i])
			continue;
		if (err)
			err[m] = fabs(p[i].actual_s / p[i].runtime_s - 1) * 100;
		m++;
		within += p[i].actual_s >= p[i].lower_s &&
			  p[i].actual_s <= p[i].upper_s;
		late += p[i].actual_s > p[i].upper_s;
	}
	double med = NAN;
	if (err && m) {
		qsort(err, m, sizeof *err, cmp_double);
		med = m % 2 ? err[m / 2] : (err[m / 2 - 1] + err[m / 2]) / 2;
	}
	free(err);
	fputs("<tr>", f);
	cell_text(f, app);
	fprintf(f,
		"<td class=\"n\">%zu</td><td class=\"n\">%.1f</td><td "
		"class=\"n\">%zu</td><td class=\"n\">%zu</td></tr>",
		m, med, within, late);
}

static void page_accuracy(FILE *f, const mpp_ui_data *d, const char *app)
{
	size_t n = d->npoints;
	unsigned char *keep = calloc(n ? n : 1, 1);
	if (keep == NULL)
		return;
	fprintf(f,
		"<p class=\"note\">Each point is one prediction whose job has "
		"finished: %s. Dashed: predicted = actual; shaded: the "
		"interval; red: ran past its upper bound.",
		strcmp(d->outcomes, "jobs") == 0
		    ? "actual run times from Slurm's accounting (table jobs)"
		    : "actual run times from the ingested runs with the same "
		      "job id (no Slurm accounting in this store yet)");
	if (d->points_total > (long long)n)
		fprintf(f, " The last %zu of %lld.", n, d->points_total);
	fputs("</p><h2>Summary</h2><table id=\"summary\"><tr><th>app</th>"
	      "<th>predictions with outcome</th><th>median |error| %</th>"
	      "<th>within interval</th><th>past upper bound</th></tr>",
	      f);
	/* One row per app (points are not sorted by app: mark and sweep). */
	for (size_t i = 0; i < n; i++) {
		const char *a = d->points[i].app;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(d->points[j].app, a) == 0;
		if (seen || (app && strcmp(app, a) != 0))
			continue;
		for (size_t j = 0; j < n; j++)
			keep[j] = strcmp(d->points[j].app, a) == 0;
		summary_row(f, a, d->points, n, keep);
	}
	if (!app)
		summary_row(f, "all", d->points, n, NULL);
	fputs("</table><p>", f);
	fputs(app ? "<a href=\"/ui/accuracy\">all apps</a>" : "apps:", f);
	for (size_t i = 0; !app && i < d->nmodels; i++) {
		if (!d->models[i].active)
			continue;
		fputs(" <a href=\"/ui/accuracy?app=", f);
		/* Percent-encoded for the URL (a name may hold '+', '&',
		 * '#', spaces: stored by other routes than the trainer),
		 * HTML-escaped for the text. */
		mpp_url_component(f, d->models[i].app);
		fputs("\">", f);
		mpp_html_text(f, d->models[i].app);
		fputs("</a>", f);
	}
	fputs("</p><h2>", f);
	mpp_html_text(f, app ? app : "All apps");
	fputs("</h2><div class=\"charts\" id=\"main\">", f);
	for (size_t j = 0; j < n; j++)
		keep[j] = !app || strcmp(d->points[j].app, app) == 0;
	mpp_svg_scatter(f, d->points, n, keep, "predicted vs actual run time");
	mpp_svg_errors(f, d->points, n, keep, "error over time");
	fputs("</div>", f);
	/* Every app: one chart each, when there is more than one. */
	size_t napps = 0;
	for (size_t i = 0; !app && i < d->nmodels; i++)
		napps += d->models[i].active;
	for (size_t i = 0; !app && napps > 1 && i < d->nmodels; i++) {
		const char *a = d->models[i].app;
		if (!d->models[i].active)
			continue;
		fputs("<h2>", f);
		mpp_html_text(f, a);
		fputs("</h2><div class=\"charts per-app\">", f);
		for (size_t j = 0; j < n; j++)
			keep[j] = strcmp(d->points[j].app, a) == 0;
		mpp_svg_scatter(f, d->points, n, keep,
				"predicted vs actual run time");
		mpp_svg_errors(f, d->points, n, keep, "error over time");
		fputs("</div>", f);
	}
	free(keep);
}

static void hours(FILE *f, double s)
{
	fprintf(f, "<td class=\"n\">%.2f</td>", s / 3600);
}

/* A run time in seconds: one decimal under 100 s, else whole seconds. */
static void secs(FILE *f, double s)
{
	fprintf(f, s < 100 ? "%.1f" : "%.0f", s);
}

static void page_users(FILE *f, const mpp_ui_data *d, int shown)
{
	if (!shown) {
		fputs("<p class=\"note\">User names are personal data: this "
		      "page needs the daemon's bearer token, or --ui-users "
		      "yes.</p>",
		      f);
		return;
	}
	if (!d->have_jobs) {
		/* No finished job has arrived: the fix is at Slurm, not
		 * here (the table exists from store version 4 on). */
		fputs("<p class=\"note\">No finished jobs yet: requested "
		      "times come from Slurm's job completion. Set up "
		      "<code>JobCompType=jobcomp/script</code> with "
		      "<code>mpipredict-jobcomp</code> so that Slurm sends "
		      "each finished job to this daemon (docs/deploy.md, "
		      "section 5).</p>",
		      f);
		return;
	}
	fputs("<p class=\"note\">Over-request factor: the time users asked "
	      "for (their jobs' limits) over the time the jobs ran. Freed: "
	      "node-hours of reservation a limit at the predicted upper bound "
	      "would have given back, over the jobs that ended within that "
	      "bound.</p><table id=\"users\"><tr><th>user</th><th>jobs</th>"
	      "<th>requested h</th><th>used h</th><th>over-request "
	      "factor</th><th>jobs within prediction</th><th>freed "
	      "node-h</th></tr>",
	      f);
	for (size_t i = 0; i < d->nusers; i++) {
		const mpp_ui_user *u = &d->users[i];
		fputs("<tr>", f);
		cell_text(f, u->user);
		fprintf(f, "<td class=\"n\">%lld</td>", u->jobs);
		hours(f, u->requested_s);
		hours(f, u->used_s);
		fprintf(f, "<td class=\"n\">%.2f</td><td class=\"n\">%lld</td>",
			u->factor, u->predicted);
		hours(f, u->freed_node_s);
		fputs("</tr>", f);
	}
	fputs("</table>", f);
}

static void page_predictions(FILE *f, const mpp_ui_data *d, int shown)
{
	fprintf(f,
		"<p class=\"note\">The last %zu of %lld predictions, newest "
		"first. Basis: features (measured counters), parameters (job "
		"size and arguments only). Outcome: the job's actual run "
		"time, when known.</p><table id=\"recent\"><tr><th>id</th>"
		"<th>time (UTC)</th><th>app</th><th>model</th><th>job</th>",
		d->nrecent, d->predictions_total);
	if (shown)
		fputs("<th>user</th>", f);
	fputs("<th>basis</th><th>predicted s</th><th>interval s</th><th>"
	      "actual s</th><th>outcome</th></tr>",
	      f);
	for (size_t i = 0; i < d->nrecent; i++) {
		const mpp_ui_pred *p = &d->recent[i];
		fprintf(f, "<tr><td class=\"n\">%lld</td><td>", p->id);
		date(f, p->at);
		fputs("</td>", f);
		cell_text(f, p->app);
		if (p->version >= 0)
			fprintf(f, "<td class=\"n\">%lld</td>", p->version);
		else
			fputs("<td></td>", f);
		cell_text(f, p->job_id);
		if (shown)
			cell_text(f, p->user);
		cell_text(f, p->basis);
		fputs("<td class=\"n\">", f);
		secs(f, p->runtime_s);
		fputs("</td><td class=\"n\">", f);
		secs(f, p->lower_s);
		fputs("&ndash;", f);
		secs(f, p->upper_s);
		fputs("</td>", f);
		if (isnan(p->actual_s))
			fputs("<td></td><td>not known yet</td>", f);
		else {
			const char *what =
			    p->actual_s > p->upper_s   ? "past upper bound"
			    : p->actual_s < p->lower_s ? "below lower bound"
						       : "within interval";
			fputs("<td class=\"n\">", f);
			secs(f, p->actual_s);
			fprintf(f, "</td><td%s>%s</td>",
				p->actual_s > p->upper_s ? " class=\"late\""
							 : "",
				what);
		}
		fputs("</tr>", f);
	}
	fputs("</table>", f);
}

void mpp_ui_answer(mpp_ui *ui, const char *path, const char *app, int token_ok,
		   mpp_reply *r)
{
	enum view v = view_of(path);
	int shown = ui->users_shown || token_ok;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL || v == V_NONE) {
		if (f)
			fclose(f);
		free(buf);
		mpp_api_error(r, v == V_NONE ? 404 : 500, "%s",
			      v == V_NONE ? "path: no such page"
					  : "out of memory");
		return;
	}
	const mpp_ui_data *d = mpp_ui_acquire(ui->store);
	int found = app == NULL;
	for (size_t i = 0; !found && i < d->nmodels; i++)
		found = strcmp(d->models[i].app, app) == 0;
	head(f, v, shown);
	if (!found) {
		fputs("<p class=\"note\">No model for the app ", f);
		mpp_html_text(f, app);
		fputs(".</p>", f);
	} else if (v == V_MODELS) {
		page_models(f, d);
		mpp_histsvc_page(f); /* the history's choice (hist.h) */
	} else if (v == V_ACCURACY)
		page_accuracy(f, d, app);
	else if (v == V_USERS)
		page_users(f, d, shown);
	else
		page_predictions(f, d, shown);
	fputs("<p class=\"note\">Data as of ", f);
	date(f, d->built_at);
	fputs(" UTC (the page is rebuilt when the store changes).</p>"
	      "</main></body></html>\n",
	      f);
	mpp_ui_release(ui->store, d);
	if (fclose(f) != 0) {
		free(buf);
		mpp_api_error(r, 500, "out of memory");
		return;
	}
	r->status = found ? 200 : 404;
	r->content_type = "text/html; charset=utf-8";
	r->body = buf;
	r->len = len;
}
