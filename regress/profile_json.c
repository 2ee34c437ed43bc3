/*
 * profile_json.c: machine profile <-> JSON (profile_json.h), with jansson.
 * Not for: anything about how the numbers were obtained or are used.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress/profile_json.h"

#include "regress/memory.h"

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *level_to_json(const mpp_loggps_level *l)
{
	json_t *o = json_object(), *h = json_array(), *c = json_array(),
	       *r = json_object();
	int j;

	json_object_set_new(o, "o", json_real(l->o));
	json_object_set_new(o, "Os", json_real(l->Os));
	json_object_set_new(o, "Or", json_real(l->Or));
	json_object_set_new(o, "g", json_real(l->g));
	json_object_set_new(o, "L", json_real(l->L));
	json_object_set_new(o, "G", json_real(l->G));
	for (j = 0; j < l->nh; j++) {
		json_array_append_new(h, num_or_null(l->h[j]));
		json_array_append_new(c, num_or_null(l->C[j]));
	}
	json_object_set_new(o, "h", h);
	json_object_set_new(o, "C", c);
	json_object_set_new(r, "o", json_real(l->residual.o));
	json_object_set_new(r, "Os", json_real(l->residual.Os));
	json_object_set_new(r, "Or", json_real(l->residual.Or));
	json_object_set_new(r, "g", json_real(l->residual.g));
	json_object_set_new(r, "L", json_real(l->residual.L));
	json_object_set_new(r, "G", json_real(l->residual.G));
	json_object_set_new(r, "h", num_or_null(l->residual.h));
	json_object_set_new(r, "C", num_or_null(l->residual.C));
	json_object_set_new(o, "residual", r);
	json_object_set_new(o, "samples", json_integer(l->samples));
	return o;
}

static json_t *mem_to_json(const mpp_mem_curve *c)
{
	json_t *o = json_object(), *x = json_array(), *cs = json_array();

	for (int i = 0; i < c->npoints; i++)
		json_array_append_new(x, json_real(c->node_kib[i]));
	for (int k = 0; k < c->ncurves; k++) {
		json_t *cv = json_object(), *t = json_array();
		for (int i = 0; i < c->npoints; i++)
			json_array_append_new(t,
					      json_real(c->ns_per_byte[k][i]));
		json_object_set_new(cv, "ranks", json_integer(c->ranks[k]));
		json_object_set_new(cv, "ns_per_byte", t);
		json_array_append_new(cs, cv);
	}
	json_object_set_new(o, "node_kib", x);
	json_object_set_new(o, "curves", cs);
	return o;
}

char *mpp_profile_to_json(const mpp_loggps_profile *p)
{
	json_t *d = json_object(), *lv = json_object(), *miss = json_object();
	char *s;
	int i;

	if (!d || !lv || !miss) {
		json_decref(d);
		json_decref(lv);
		json_decref(miss);
		return NULL;
	}
	json_object_set_new(d, "machine",
			    json_string(p->machine ? p->machine : ""));
	json_object_set_new(d, "created_at",
			    json_string(p->created_at ? p->created_at : ""));
	json_object_set_new(d, "nodes_seen", json_integer(p->nodes_seen));
	json_object_set_new(d, "packages_per_node",
			    json_integer(p->packages_per_node));
	json_object_set_new(d, "cores_per_node",
			    json_integer(p->cores_per_node));
	for (i = 0; i < MPP_NLV; i++) {
		json_object_set_new(lv, mpp_lv_names[i],
				    p->level[i] ? level_to_json(p->level[i])
						: json_null());
		if (!p->level[i])
			json_object_set_new(miss, mpp_lv_names[i],
					    json_string(p->missing[i]
							    ? p->missing[i]
							    : "not measured"));
	}
	json_object_set_new(d, "levels", lv);
	json_object_set_new(d, "missing", miss);
	json_object_set_new(d, "memory",
			    p->mem ? mem_to_json(p->mem) : json_null());
	s = json_dumps(d, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			      JSON_REAL_PRECISION(6));
	json_decref(d);
	return s;
}

/* A number field of obj into *out (null -> NAN when nullable). */
static int get_num(json_t *obj, const char *key, int nullable, double *out,
		   const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(obj, key);

	if (v && json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (v && nullable && json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	snprintf(err, errlen, "%s: field \"%s\" %s", where, key,
		 v ? "is not a number" : "is missing");
	return -1;
}

static int level_from_json(json_t *o, mpp_loggps_level *l, const char *where,
			   char *err, size_t errlen)
{
	static const char *const keys[] = {"o", "Os", "Or", "g", "L", "G"};
	double *dst[] = {&l->o, &l->Os, &l->Or, &l->g, &l->L, &l->G};
	double *rdst[] = {&l->residual.o, &l->residual.Os, &l->residual.Or,
			  &l->residual.g, &l->residual.L,  &l->residual.G};
	json_t *h = json_object_get(o, "h"), *c = json_object_get(o, "C");
	json_t *r = json_object_get(o, "residual");
	char w[320];
	double s;
	size_t i;

	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s: expected an object or null", where);
		return -1;
	}
	for (i = 0; i < 6; i++)
		if (get_num(o, keys[i], 0, dst[i], where, err, errlen) < 0)
			return -1;
	if (!json_is_array(h) || !json_is_array(c) ||
	    json_array_size(h) != json_array_size(c)) {
		snprintf(err, errlen,
			 "%s: fields \"h\" and \"C\" must be arrays of one "
			 "length",
			 where);
		return -1;
	}
	l->nh = (int)json_array_size(h);
	l->h = calloc((size_t)l->nh + 1, sizeof *l->h);
	l->C = calloc((size_t)l->nh + 1, sizeof *l->C);
	if (!l->h || !l->C) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < (size_t)l->nh; i++) {
		json_t *a = json_array_get(h, i), *b = json_array_get(c, i);

		if ((!json_is_number(a) && !json_is_null(a)) ||
		    (!json_is_number(b) && !json_is_null(b))) {
			snprintf(err, errlen,
				 "%s: h[%zu] and C[%zu] must be numbers or "
				 "null",
				 where, i, i);
			return -1;
		}
		l->h[i] = json_is_null(a) ? NAN : json_number_value(a);
		l->C[i] = json_is_null(b) ? NAN : json_number_value(b);
	}
	snprintf(w, sizeof w, "%s.residual", where);
	if (!json_is_object(r)) {
		snprintf(err, errlen, "%s: expected an object", w);
		return -1;
	}
	for (i = 0; i < 6; i++)
		if (get_num(r, keys[i], 0, rdst[i], w, err, errlen) < 0)
			return -1;
	if (get_num(r, "h", 1, &l->residual.h, w, err, errlen) < 0 ||
	    get_num(r, "C", 1, &l->residual.C, w, err, errlen) < 0 ||
	    get_num(o, "samples", 0, &s, where, err, errlen) < 0)
		return -1;
	l->samples = (long)s;
	return 0;
}

/* The "memory" object into a new curve at *out. */
static int mem_from_obj(json_t *o, const char *name, mpp_mem_curve **out,
			char *err, size_t errlen)
{
	json_t *x = json_object_get(o, "node_kib"),
	       *cs = json_object_get(o, "curves");
	char where[320];
	mpp_mem_curve *c;

	if (!json_is_array(x) || !json_is_array(cs)) {
		snprintf(err, errlen,
			 "%s: memory: expected an object with arrays "
			 "\"node_kib\" and \"curves\"",
			 name);
		return -1;
	}
	if (json_array_size(x) > MPP_MEM_POINTS ||
	    json_array_size(cs) > MPP_MEM_CURVES) {
		snprintf(err, errlen,
			 "%s: memory: at most %d points and %d curves", name,
			 MPP_MEM_POINTS, MPP_MEM_CURVES);
		return -1;
	}
	c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->npoints = (int)json_array_size(x);
	c->ncurves = (int)json_array_size(cs);
	for (int i = 0; i < c->npoints; i++) {
		json_t *v = json_array_get(x, (size_t)i);
		c->node_kib[i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	for (int k = 0; k < c->ncurves; k++) {
		json_t *cv = json_array_get(cs, (size_t)k),
		       *t = json_object_get(cv, "ns_per_byte");
		double r;
		snprintf(where, sizeof where, "%s: memory.curves[%d]", name, k);
		if (!json_is_object(cv) ||
		    get_num(cv, "ranks", 0, &r, where, err, errlen) < 0 ||
		    !json_is_array(t) ||
		    json_array_size(t) != (size_t)c->npoints) {
			if (json_is_object(cv) &&
			    json_is_number(json_object_get(cv, "ranks")))
				snprintf(err, errlen,
					 "%s: field \"ns_per_byte\" must be "
					 "an array as long as node_kib",
					 where);
			else if (!json_is_object(cv))
				snprintf(err, errlen, "%s: expected an object",
					 where);
			free(c);
			return -1;
		}
		c->ranks[k] = r >= 1 && r <= 1e6 ? (int)r : 0;
		for (int i = 0; i < c->npoints; i++) {
			json_t *v = json_array_get(t, (size_t)i);
			c->ns_per_byte[k][i] =
			    json_is_number(v) ? json_number_value(v) : NAN;
		}
	}
	snprintf(where, sizeof where, "%s: memory", name);
	if (mpp_mem_curve_check(c, where, err, errlen) < 0) {
		free(c);
		return -1;
	}
	*out = c;
	return 0;
}

int mpp_profile_from_json(const char *name, const char *text,
			  mpp_loggps_profile *p, char *err, size_t errlen)
{
	json_error_t je;
	json_t *d = json_loads(text, 0, &je), *lv, *miss, *v;
	char where[256];
	double n;
	int i;

	*p = (mpp_loggps_profile){0};
	if (!d) {
		snprintf(err, errlen, "%s:%d: %s", name, je.line, je.text);
		return -1;
	}
	lv = json_object_get(d, "levels");
	miss = json_object_get(d, "missing");
	if (!json_is_object(d) ||
	    !json_is_string(json_object_get(d, "machine")) ||
	    !json_is_string(json_object_get(d, "created_at")) ||
	    !json_is_object(lv)) {
		snprintf(err, errlen,
			 "%s: expected an object with \"machine\", "
			 "\"created_at\" (strings) and \"levels\" (object)",
			 name);
		goto fail;
	}
	p->machine = strdup(json_string_value(json_object_get(d, "machine")));
	p->created_at =
	    strdup(json_string_value(json_object_get(d, "created_at")));
	if (get_num(d, "nodes_seen", 0, &n, name, err, errlen) < 0)
		goto fail;
	p->nodes_seen = (int)n;
	if (get_num(d, "packages_per_node", 0, &n, name, err, errlen) < 0)
		goto fail;
	p->packages_per_node = (int)n;
	if (get_num(d, "cores_per_node", 0, &n, name, err, errlen) < 0)
		goto fail;
	p->cores_per_node = (int)n;
	for (i = 0; i < MPP_NLV; i++) {
		v = json_object_get(lv, mpp_lv_names[i]);
		snprintf(where, sizeof where, "%s: levels.%s", name,
			 mpp_lv_names[i]);
		if (!v || json_is_null(v)) {
			json_t *why =
			    miss ? json_object_get(miss, mpp_lv_names[i])
				 : NULL;
			p->missing[i] =
			    strdup(json_is_string(why) ? json_string_value(why)
						       : "not measured");
			continue;
		}
		p->level[i] = calloc(1, sizeof *p->level[i]);
		if (!p->level[i]) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		if (level_from_json(v, p->level[i], where, err, errlen) < 0)
			goto fail;
	}
	v = json_object_get(d, "memory");
	if (v && !json_is_null(v) &&
	    mem_from_obj(v, name, &p->mem, err, errlen) < 0)
		goto fail;
	json_decref(d);
	return 0;
fail:
	json_decref(d);
	mpp_loggps_profile_clear(p);
	return -1;
}

char *mpp_mem_curve_to_json(const mpp_mem_curve *c)
{
	json_t *o = mem_to_json(c);
	char *s =
	    o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
	json_decref(o);
	return s;
}

int mpp_mem_curve_from_json(const char *name, const char *text,
			    mpp_mem_curve **out, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loads(text, 0, &je);
	int rc;

	*out = NULL;
	if (!o) {
		snprintf(err, errlen, "%s:%d: %s", name, je.line, je.text);
		return -1;
	}
	rc = json_is_object(o) ? mem_from_obj(o, name, out, err, errlen) : -1;
	if (!json_is_object(o))
		snprintf(err, errlen, "%s: memory: expected an object", name);
	json_decref(o);
	return rc;
}
