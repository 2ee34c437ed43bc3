/*
 * ui_svg.c: predicted-vs-actual and error-over-time charts as inline SVG
 * (see ui_svg.h), and the HTML escaping every page and chart uses.
 *
 * Scales: log10 on both axes of the scatter, from the decade below the
 * smallest value to the decade above the largest (with 2x and 5x ticks
 * when that is a single decade); time on the x axis of the error chart,
 * error clamped to [-100 %, +300 %] (a clamped point is drawn hollow).
 *
 * Not for: data (ui_data.c) or page layout (ui.c).
 */
#include "server/ui_svg.h"
#include "common/utf8.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W  640
#define H  400
#define ML 64 /* margins: left, right, top, bottom */
#define MR 16
#define MT 16
#define MB 44

void mpp_url_component(FILE *f, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;
	     p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p) != NULL)
			fputc(*p, f);
		else
			fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}

void mpp_html_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)p);
	while (*p) {
		size_t n = mpp_utf8_seq(p, left);
		if (n == 0 || (*p < 0x20 && *p != '\t')) {
			fputc('?', f);
			p++;
			left--;
			continue;
		}
		switch (*p) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fwrite(p, 1, n, f);
		}
		p += n;
		left -= n;
	}
}

/* A duration for a log axis (1, 2, 5 x a power of ten seconds): seconds
 * up to 50,000, then hours. */
static void dur_label(char *buf, size_t len, double s)
{
	if (s < 1e5)
		snprintf(buf, len, "%gs", s);
	else
		snprintf(buf, len, "%.0fh", s / 3600);
}

/* Unique ids for the clip paths of the charts on one page. */
static atomic_uint clip_seq;

static int kept(const unsigned char *keep, size_t i)
{
	return keep == NULL || keep[i];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void frame(FILE *f, const char *label)
{
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
		"viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
		"aria-label=\"",
		W, H, W, H);
	mpp_html_text(f, label);
	fprintf(f,
		"\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"class=\"plot\"/>",
		ML, MT, W - ML - MR, H - MT - MB);
}

void mpp_svg_scatter(FILE *f, const mpp_ui_pred *pts, size_t n,
		     const unsigned char *keep, const char *label)
{
	double lo = INFINITY, hi = 0, *rl = NULL, *rh = NULL;
	size_t m = 0, nb = 0;
	if (n) {
		rl = malloc(n * sizeof *rl);
		rh = malloc(n * sizeof *rh);
	}
	/* The range over the positive values; a prediction of 0 s (a model
	 * clamps there) is drawn on the left axis, hollow. */
	for (size_t i = 0; i < n; i++) {
		if (!kept(keep, i) || !(pts[i].actual_s > 0))
			continue;
		lo = fmin(lo, pts[i].actual_s);
		hi = fmax(hi, pts[i].actual_s);
		m++;
		if (!(pts[i].runtime_s > 0))
			continue;
		lo = fmin(lo, pts[i].runtime_s);
		hi = fmax(hi, pts[i].runtime_s);
		if (rl && rh) {
			rl[nb] = pts[i].lower_s / pts[i].runtime_s;
			rh[nb] = pts[i].upper_s / pts[i].runtime_s;
		}
		nb++;
	}
	frame(f, label);
	if (m == 0) {
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no "
			"prediction with a known outcome yet</text></svg>",
			W / 2, H / 2);
		free(rl);
		free(rh);
		return;
	}
	int d0 = (int)floor(log10(lo)), d1 = (int)ceil(log10(hi));
	if (d1 <= d0)
		d1 = d0 + 1;
	double l0 = d0, l1 = d1;
#define SX(v) (ML + (log10(v) - l0) / (l1 - l0) * (W - ML - MR))
#define SY(v) (H - MB - (log10(v) - l0) / (l1 - l0) * (H - MT - MB))
	/* Ticks and grid. */
	static const double steps[] = {1, 2, 5};
	for (int d = d0; d <= d1; d++)
		for (int k = 0; k < 3; k++) {
			double v = steps[k] * pow(10, d);
			char t[32];
			if (log10(v) > l1 + 1e-9 || (k && d1 - d0 > 1))
				continue;
			dur_label(t, sizeof t, v);
			fprintf(f,
				"<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" "
				"x2=\"%.1f\" y2=\"%d\"/><line class=\"grid\" "
				"x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
				"<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
				"text-anchor=\"%s\">%s</text><text "
				"class=\"tick\" x=\"%d\" y=\"%.1f\" "
				"text-anchor=\"end\">%s</text>",
				SX(v), MT, SX(v), H - MB, ML, SY(v), W - MR,
				SY(v), SX(v), H - MB + 16,
				log10(v) > l1 - 1e-9 ? "end" : "middle", t,
				ML - 6, SY(v) + 4, t);
		}
	fprintf(f,
		"<text class=\"axis\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"middle\">predicted run time</text><text "
		"class=\"axis\" transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\">actual run time</text>",
		(ML + W - MR) / 2, H - 8, (MT + H - MB) / 2);
	/* The band: the median interval factors, as a polygon between the
	 * lines y = x * lo and y = x * hi, clipped to the plot. */
	double bl = rl && rh && nb ? median(rl, nb) : 1;
	double bh = rl && rh && nb ? median(rh, nb) : 1;
	double x0 = pow(10, l0), x1 = pow(10, l1);
	unsigned clip = atomic_fetch_add(&clip_seq, 1);
	fprintf(
	    f,
	    "<clipPath id=\"clip%u\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
	    "height=\"%d\"/></clipPath><g clip-path=\"url(#clip%u)\">"
	    "<polygon class=\"band\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f "
	    "%.1f,%.1f\"><title>interval band: %.2fx to %.2fx the "
	    "prediction (median of these predictions)</title></polygon>"
	    "<line class=\"identity\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
	    "y2=\"%.1f\"/></g>",
	    clip, ML, MT, W - ML - MR, H - MT - MB, clip, SX(x0), SY(x0 * bl),
	    SX(x1), SY(x1 * bl), SX(x1), SY(x1 * bh), SX(x0), SY(x0 * bh), bl,
	    bh, SX(x0), SY(x0), SX(x1), SY(x1));
	for (size_t i = 0; i < n; i++) {
		const mpp_ui_pred *p = &pts[i];
		if (!kept(keep, i) || !(p->actual_s > 0))
			continue;
		int zero = !(p->runtime_s > 0);
		fprintf(f,
			"<circle class=\"pt%s%s\" data-id=\"%lld\" cx=\"%.1f\" "
			"cy=\"%.1f\" r=\"3.5\"><title>",
			p->actual_s > p->upper_s ? " late" : "",
			zero ? " clamped" : "", p->id,
			zero ? (double)ML : SX(p->runtime_s), SY(p->actual_s));
		mpp_html_text(f, p->app);
		fputs(" job ", f);
		mpp_html_text(f, p->job_id);
		fprintf(f,
			": predicted %.0f s [%.0f, %.0f], ran %.0f s"
			"</title></circle>",
			p->runtime_s, p->lower_s, p->upper_s, p->actual_s);
	}
#undef SX
#undef SY
	fputs("</svg>", f);
	free(rl);
	free(rh);
}

void mpp_svg_errors(FILE *f, const mpp_ui_pred *pts, size_t n,
		    const unsigned char *keep, const char *label)
{
	double t0 = INFINITY, t1 = -INFINITY, emax = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!kept(keep, i) || !(pts[i].actual_s > 0))
			continue;
		t0 = fmin(t0, pts[i].at);
		t1 = fmax(t1, pts[i].at);
		emax = pts[i].runtime_s > 0
			   ? fmax(emax,
				  fabs(pts[i].actual_s / pts[i].runtime_s - 1))
			   : INFINITY;
		m++;
	}
	frame(f, label);
	if (m == 0) {
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no "
			"prediction with a known outcome yet</text></svg>",
			W / 2, H / 2);
		return;
	}
	if (t1 - t0 < 60) {
		t0 -= 30;
		t1 += 30;
	}
	/* The y range: the smallest of these half-widths (percent) that holds
	 * every error, at most -100 % below (a run cannot take less than
	 * nothing) and 300 % above (beyond: clamped, drawn hollow). */
	static const int spans[] = {5, 10, 20, 50, 100, 200, 300};
	int span = 300;
	for (size_t k = 0; k < sizeof spans / sizeof *spans; k++)
		if (emax * 100 <= spans[k]) {
			span = spans[k];
			break;
		}
	const double e0 = span > 100 ? -100 : -span, e1 = span;
#define SX(t) (ML + ((t)-t0) / (t1 - t0) * (W - ML - MR))
#define SY(e) (H - MB - ((e)-e0) / (e1 - e0) * (H - MT - MB))
	for (int e = (int)e0; e <= (int)e1;
	     e += span / 5 < 20 ? span / 5 : 50) {
		fprintf(f,
			"<line class=\"%s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			"y2=\"%.1f\"/><text class=\"tick\" x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%+d%%</text>",
			e ? "grid" : "identity", ML, SY(e), W - MR, SY(e),
			ML - 6, SY(e) + 4, e);
	}
	for (int k = 0; k <= 4; k++) {
		double t = t0 + (t1 - t0) * k / 4;
		time_t tt = (time_t)t;
		struct tm tm;
		char buf[32];
		gmtime_r(&tt, &tm);
		strftime(buf, sizeof buf,
			 t1 - t0 > 2 * 86400 ? "%m-%d"
			 : t1 - t0 > 3600    ? "%m-%d %H:%M"
					     : "%H:%M:%S",
			 &tm);
		fprintf(f,
			"<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"%s\">%s</text>",
			SX(t), H - MB + 16,
			k == 0   ? "start"
			: k == 4 ? "end"
				 : "middle",
			buf);
	}
	fprintf(f,
		"<text class=\"axis\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"middle\">prediction time (UTC)</text><text "
		"class=\"axis\" transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\">actual / predicted - 1</text>",
		(ML + W - MR) / 2, H - 8, (MT + H - MB) / 2);
	for (size_t i = 0; i < n; i++) {
		const mpp_ui_pred *p = &pts[i];
		if (!kept(keep, i) || !(p->actual_s > 0))
			continue;
		/* A prediction of 0 s: infinitely short, clamped at the top. */
		double e = p->runtime_s > 0
			       ? (p->actual_s / p->runtime_s - 1) * 100
			       : INFINITY;
		int clamped = e < e0 || e > e1;
		fprintf(f,
			"<circle class=\"ept%s%s\" data-id=\"%lld\" "
			"cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>",
			p->actual_s > p->upper_s ? " late" : "",
			clamped ? " clamped" : "", p->id, SX(p->at),
			SY(fmin(fmax(e, e0), e1)));
		mpp_html_text(f, p->app);
		fputs(" job ", f);
		mpp_html_text(f, p->job_id);
		fprintf(f, ": %+.1f%%</title></circle>", e);
	}
#undef SX
#undef SY
	fputs("</svg>", f);
}
