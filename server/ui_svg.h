/*
 * ui_svg.h: the staff page's charts, drawn by the server as inline SVG.
 *
 * Why SVG from C rather than a chart library: the charts are two kinds of
 * scatter plot with a line and a band; drawing them is ~250 lines of C
 * with no dependency, nothing to vendor or fetch, a page with no script
 * at all (so a strict Content-Security-Policy, and nothing that can fail
 * in the browser), and every point is an element the tests can count.
 *
 * Every point is a <circle> with class "pt" (predicted vs actual) or "ept"
 * (error over time), a data-id attribute holding the prediction's id and a
 * <title> tooltip. Not for: choosing which predictions to draw (ui.c).
 */
#ifndef MPP_SERVER_UI_SVG_H
#define MPP_SERVER_UI_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "server/ui_data.h"

/* Predicted (x) vs actual (y) run time, both log scale, of pts[i] for
 * which keep[i] is non-zero (keep NULL: all): the identity line, the
 * interval band (the median relative interval of those predictions) and
 * one point each; a point past its upper bound is drawn in red. */
void mpp_svg_scatter(FILE *f, const mpp_ui_pred *pts, size_t n,
		     const unsigned char *keep, const char *label);

/* Relative error (actual / predicted - 1, in percent) of the same points
 * over time (prediction time, UTC), with the zero line. */
void mpp_svg_errors(FILE *f, const mpp_ui_pred *pts, size_t n,
		    const unsigned char *keep, const char *label);

/* s as HTML/SVG text: <>&"' escaped, bytes that are not UTF-8 as '?'. */
void mpp_html_text(FILE *f, const char *s);

/* s as a URL query value: every byte but RFC 3986's unreserved ones
 * (A-Z a-z 0-9 - . _ ~) percent-encoded, so "c++ &x#1" is
 * "c%2B%2B%20%26x%231". The result needs no HTML escaping in an
 * attribute. */
void mpp_url_component(FILE *f, const char *s);

#endif
