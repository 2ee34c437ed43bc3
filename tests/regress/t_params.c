/*
 * t-params: the cases params.h promises, checked against values worked out
 * by hand from its rules (options, '=', positional numbers, flags).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "regress/model.h"
#include "regress/params.h"

static int failures;

static void expect(const char *args, const mpp_params *p, const char *name,
		   double want)
{
	const double *v = mpp_params_get(p, name);

	if (isnan(want)) {
		if (v) {
			printf("args '%s': expected no %s, got %g\n", args,
			       name, *v);
			failures++;
		}
		return;
	}
	if (!v || *v != want) {
		printf("args '%s': expected %s=%g, got %s%g\n", args, name,
		       want, v ? "" : "absent ", v ? *v : 0.0);
		failures++;
	}
}

static void check(const char *args, double nprocs, double nnodes, size_t n,
		  const char *const *names, const double *values)
{
	mpp_params p;

	if (mpp_params_from_string(args, nprocs, nnodes, &p) != MPP_OK) {
		printf("args '%s': expected success\n", args);
		failures++;
		return;
	}
	size_t present = 0;
	for (size_t i = 0; i < n; i++)
		present += !isnan(values[i]);
	if (p.n != present) {
		printf("args '%s': expected %zu parameters, got %zu\n", args,
		       present, p.n);
		failures++;
	}
	for (size_t i = 0; i < n; i++)
		expect(args, &p, names[i], values[i]);
	mpp_params_free(&p);
}

#define CASE(args, np, nn, ...)                                                \
	do {                                                                   \
		const char *const names_[] = {__VA_ARGS__};                    \
		const double *vals_ = values;                                  \
		check(args, np, nn, sizeof(names_) / sizeof(*names_), names_,  \
		      vals_);                                                  \
	} while (0)

int main(void)
{
	{
		const double values[] = {4, 1, 512, 1024, 64, 10};
		CASE("-n 512 --size=1024 64 out.txt 10", 4, 1, "nprocs",
		     "nnodes", "-n", "--size", "#1", "#3");
	}
	{
		const double values[] = {8, 5, NAN};
		CASE("--verbose -x 5", 8, -1, "nprocs", "-x", "--verbose");
	}
	{
		const double values[] = {7, NAN};
		CASE("--flag out.txt 7", -1, -1, "#2", "#1");
	}
	{
		const double values[] = {-5, 3, 1000};
		CASE("-5 3 1e3", -1, -1, "#1", "#2", "#3");
	}
	{
		const double values[] = {2, NAN, NAN};
		CASE("--size=abc inf nan", 2, -1, "nprocs", "--size", "#1");
	}
	{
		const double values[] = {16, 16};
		CASE("  -n   16  ", 16, -1, "nprocs", "-n");
	}
	{
		const char *argv[] = {"--grid", "128", "in put.dat", "3"};
		mpp_params p;
		if (mpp_params_from_argv(argv, 4, 2, 1, &p) != MPP_OK) {
			printf("argv: expected success\n");
			return 1;
		}
		expect("argv", &p, "--grid", 128);
		expect("argv", &p, "#2", 3);
		expect("argv", &p, "nnodes", 1);
		mpp_params_free(&p);
	}
	if (failures)
		return 1;
	printf("params: all cases pass\n");
	return 0;
}
