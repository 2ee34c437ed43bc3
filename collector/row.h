/*
 * row.h: one run record (docs/design.md, "Run records") as text, and the
 * per-rank dump it can be rebuilt from. Shared by libmpipredict (which merges
 * the ranks with MPI reductions) and mpipredict-collect (which merges dumps),
 * so that both write byte-identical rows. Internal to the collector part.
 *
 * No MPI here. Errors: -1 with a one-line message in err; nothing is
 * returned half-built.
 */
#ifndef MPP_ROW_H
#define MPP_ROW_H

#include <stddef.h>

/* The fixed leading columns. Strings are owned by whoever fills the struct. */
struct mpp_run_meta {
	const char *run_id, *app, *build_id, *started_at, *job_id, *args;
	int nprocs, nnodes;
	double runtime_s; /* slowest rank */
	/* The run's exit status (0-255): in a row, rank 0's status at exit
	 * (a run that finalized and then exit(1)s failed); in a dump, the
	 * rank's own (128 + N for signal N). */
	int exit_status;
};

/* Build the header line and the row line (each ending in "\n", caller
 * frees both) from nf features: column "<name>.mean" is sum[i] / nprocs,
 * "<name>.max" is max[i]. */
int mpp_row_build(const struct mpp_run_meta *m, size_t nf, char *const *names,
		  const unsigned long long *sum, const unsigned long long *max,
		  char **header, char **row, char *err, size_t errlen);

/* One rank's dump: meta (nprocs, nnodes and its own runtime_s), its rank,
 * whether it reached MPI_Finalize, and its nf feature values. */
struct mpp_dump {
	struct mpp_run_meta meta;
	int rank, finalized;
	size_t nf;
	char **names;
	unsigned long long *values;
	char *strings; /* owns the meta strings */
};

/* The pieces of a dump for a writer that must not allocate when it writes
 * (libmpipredict's dumps from signal handlers): the text up to and
 * including the "finalized" line, and a feature name escaped as the dump
 * writes it; the rest is "exit_status\t<status>\nruntime_s\t<seconds>\n"
 * "features\t<nf>\n" and
 * one "<escaped name>\t<value>\n" per feature (runtime_s may be written
 * in decimal). Both malloc'd; NULL when out of memory. */
char *mpp_dump_head(const struct mpp_run_meta *m, int rank, int finalized);
char *mpp_dump_escape(const char *name);

/* Write a dump to path atomically (a temporary file renamed into place). */
int mpp_dump_write(const char *path, const struct mpp_run_meta *m, int rank,
		   int finalized, size_t nf, char *const *names,
		   const unsigned long long *values, char *err, size_t errlen);

/* Read a dump; on error err names the file and line. Free with
 * mpp_dump_free(). */
int mpp_dump_read(const char *path, struct mpp_dump *d, char *err,
		  size_t errlen);

void mpp_dump_free(struct mpp_dump *d);

#endif
