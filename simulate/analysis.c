/*
 * analysis.c: the analyses of a simulated timeline (analysis.h).
 *
 * Times come from SimGrid's replay log (replay.c): every replayed action
 * with its simulated start and end. "mpi" is time in calls that post or
 * push a message (send, isend, irecv); "wait" is time in calls that block
 * for peers (recv, wait/waitall, collectives). Degree of parallelism: the
 * number of ranks computing at each instant, swept over the sorted
 * compute intervals. Link utilisation per level: the bytes of the replayed
 * point-to-point messages between ranks at that level (collectives: their
 * bytes spread evenly over the peers) over the level's capacity (link
 * bandwidth x links of that level in the placement) times the makespan;
 * it is an average over the run, not SimGrid's per-link trace.
 *
 * Not for: running SimGrid.
 */
#include <stdlib.h>
#include <string.h>

#include "simulate/analysis.h"

struct edge {
	double t;
	int d;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d; /* ends before starts at the same date */
}

static void level_bytes(const struct mpp_trace *t, const struct mpp_profile *p,
			const struct mpp_placement *pl, struct mpp_analysis *a)
{
	for (int r = 0; r < t->nranks; r++) {
		int o[MPP_NLV];
		mpp_rank_others(p, pl, r, o);
		for (size_t i = 0; i < t->n[r]; i++) {
			const struct mpp_act *x = &t->a[r][i];
			long peer;
			unsigned long long b = 0;
			if (!strcmp(x->name, "send") ||
			    !strcmp(x->name, "isend") ||
			    !strcmp(x->name, "sendrecv")) {
				if (sscanf(x->args, "%ld %*d %llu", &peer,
					   &b) == 2 &&
				    peer >= 0 && peer < t->nranks && peer != r)
					a->bytes[mpp_rank_level(
					    p, pl, r, (int)peer)] += (double)b;
			} else if (!strcmp(x->name, "allreduce") ||
				   !strcmp(x->name, "bcast") ||
				   !strcmp(x->name, "reduce") ||
				   !strcmp(x->name, "alltoall") ||
				   !strcmp(x->name, "allgather") ||
				   !strcmp(x->name, "alltoallv") ||
				   !strcmp(x->name, "scan") ||
				   !strcmp(x->name, "exscan")) {
				if (t->nranks < 2 ||
				    sscanf(x->args, "%llu", &b) != 1)
					continue;
				for (int l = 0; l < MPP_NLV; l++)
					a->bytes[l] +=
					    (double)b * o[l] / (t->nranks - 1);
			}
		}
	}
}

int mpp_analyse(const struct mpp_timeline *tl, const struct mpp_trace *t,
		const struct mpp_profile *p, const struct mpp_placement *pl,
		struct mpp_analysis *a)
{
	int n = t->nranks;
	size_t ne = 0;
	struct edge *e;

	memset(a, 0, sizeof *a);
	a->nranks = n;
	a->makespan = tl->sim_time;
	a->compute = calloc((size_t)n, sizeof *a->compute);
	a->mpi = calloc((size_t)n, sizeof *a->mpi);
	a->wait = calloc((size_t)n, sizeof *a->wait);
	a->busy_k = calloc((size_t)n + 1, sizeof *a->busy_k);
	e = malloc((2 * tl->n + 1) * sizeof *e);
	if (!a->compute || !a->mpi || !a->wait || !a->busy_k || !e) {
		free(e);
		mpp_analysis_free(a);
		return -1;
	}
	for (size_t i = 0; i < tl->n; i++) {
		const struct mpp_event *v = &tl->ev[i];
		double d = v->end - v->start;
		if (v->rank < 0 || v->rank >= n)
			continue;
		if (v->kind == MPP_EV_COMPUTE) {
			a->compute[v->rank] += d;
			e[ne++] = (struct edge){v->start, 1};
			e[ne++] = (struct edge){v->end, -1};
		} else if (v->kind == MPP_EV_MPI) {
			a->mpi[v->rank] += d;
		} else {
			a->wait[v->rank] += d;
		}
	}
	qsort(e, ne, sizeof *e, edge_cmp);
	int k = 0;
	double last = 0, span = a->makespan > 0 ? a->makespan : 1e-300;
	for (size_t i = 0; i <= ne; i++) {
		double tt = i < ne ? e[i].t : a->makespan;
		if (tt > last) {
			a->busy_k[k < 0 ? 0 : (k > n ? n : k)] += tt - last;
			/* spread over the tenths of the run */
			for (int b = 0; b < MPP_NBINS; b++) {
				double lo = span * b / MPP_NBINS,
				       hi = span * (b + 1) / MPP_NBINS;
				double s = last > lo ? last : lo,
				       f = tt < hi ? tt : hi;
				if (f > s)
					a->par_bin[b] +=
					    k * (f - s) / (hi - lo);
			}
			last = tt;
		}
		if (i < ne)
			k += e[i].d;
	}
	free(e);
	double sum = 0, mx = 0;
	for (int r = 0; r < n; r++) {
		sum += a->compute[r];
		mx = a->compute[r] > mx ? a->compute[r] : mx;
	}
	a->par_mean = sum / span;
	a->balance = sum > 0 ? mx / (sum / n) : 1;
	level_bytes(t, p, pl, a);
	double cap[MPP_NLV] = {0};
	static const char *const suffix[MPP_NLV] = {"_cmp", "_socket", "_nic"};
	for (size_t i = 0; i < tl->nlinks; i++) {
		const char *nm = tl->links[i].name;
		size_t ln = strlen(nm);
		for (int l = 0; l < MPP_NLV; l++) {
			size_t ls = strlen(suffix[l]);
			if (ln > ls && !strcmp(nm + ln - ls, suffix[l])) {
				a->links[l]++;
				a->sim_bytes[l] += tl->links[i].bytes;
				cap[l] += tl->links[i].bandwidth;
			}
		}
	}
	for (int l = 0; l < MPP_NLV; l++)
		if (cap[l] > 0)
			a->util[l] = a->sim_bytes[l] / (cap[l] * span);
	return 0;
}

void mpp_analysis_print(const struct mpp_analysis *a, FILE *f)
{
	fprintf(f, "simulated run time   %.6f s\n", a->makespan);
	fprintf(f, "parallelism          mean %.2f of %d ranks computing\n",
		a->par_mean, a->nranks);
	fprintf(f, "  over time (tenths) ");
	for (int b = 0; b < MPP_NBINS; b++)
		fprintf(f, " %.2f", a->par_bin[b]);
	fprintf(f, "\n  time with k computing:");
	for (int k = 0; k <= a->nranks; k++)
		fprintf(f, " k=%d %.1f%%", k,
			a->makespan > 0 ? 100 * a->busy_k[k] / a->makespan : 0);
	fprintf(f, "\nload balance         max/mean compute %.3f\n",
		a->balance);
	fprintf(f, "rank   compute_s      mpi_s     wait_s\n");
	for (int r = 0; r < a->nranks; r++) {
		int w = a->makespan > 0
			    ? (int)(30 * a->compute[r] / a->makespan + 0.5)
			    : 0;
		fprintf(f, "%4d %11.6f %10.6f %10.6f  ", r, a->compute[r],
			a->mpi[r], a->wait[r]);
		for (int i = 0; i < w && i < 30; i++)
			fputc('#', f);
		fputc('\n', f);
	}
	fprintf(f, "level   message_bytes  links  link_bytes  utilisation "
		   "(SimGrid)\n");
	for (int l = 0; l < MPP_NLV; l++)
		fprintf(f, "%-7s %13.0f %6d %11.0f  %6.2f%%\n",
			mpp_level_names[l], a->bytes[l], a->links[l],
			a->sim_bytes[l], 100 * a->util[l]);
}

json_t *mpp_analysis_json(const struct mpp_analysis *a)
{
	json_t *o = json_object(), *ranks = json_array(), *bins = json_array(),
	       *busy = json_array(), *lv = json_object();
	for (int r = 0; r < a->nranks; r++)
		json_array_append_new(
		    ranks, json_pack("{s:i,s:f,s:f,s:f}", "rank", r,
				     "compute_s", a->compute[r], "mpi_s",
				     a->mpi[r], "wait_s", a->wait[r]));
	for (int b = 0; b < MPP_NBINS; b++)
		json_array_append_new(bins, json_real(a->par_bin[b]));
	for (int k = 0; k <= a->nranks; k++)
		json_array_append_new(busy, json_real(a->busy_k[k]));
	for (int l = 0; l < MPP_NLV; l++)
		json_object_set_new(lv, mpp_level_names[l],
				    json_pack("{s:f,s:i,s:f,s:f}", "bytes",
					      a->bytes[l], "links", a->links[l],
					      "link_bytes", a->sim_bytes[l],
					      "utilisation", a->util[l]));
	json_object_set_new(o, "simulated_s", json_real(a->makespan));
	json_object_set_new(o, "parallelism_mean", json_real(a->par_mean));
	json_object_set_new(o, "parallelism_by_tenth", bins);
	json_object_set_new(o, "time_with_k_computing_s", busy);
	json_object_set_new(o, "load_balance", json_real(a->balance));
	json_object_set_new(o, "ranks", ranks);
	json_object_set_new(o, "levels", lv);
	return o;
}

void mpp_analysis_free(struct mpp_analysis *a)
{
	free(a->compute);
	free(a->mpi);
	free(a->wait);
	free(a->busy_k);
	memset(a, 0, sizeof *a);
}
