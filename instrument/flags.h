/*
 * flags.h: the clang arguments to parse a file with, taken from how the
 * user compiles it. Only what changes the preprocessed text is kept (-I -D
 * -U -isystem -iquote -idirafter -include -imacros -std= ...): other
 * compilers' flags are hard errors for clang. -fopenmp becomes
 * -D_OPENMP=201511 (parsing with -fopenmp would hide every loop under
 * `#pragma omp` inside OpenMP nodes). The include paths of an MPI wrapper
 * compiler come from asking it (`-showme:compile` for OpenMPI, `-show` for
 * MPICH, else the non-system directories of its `-E -v` search list).
 */
#ifndef MPP_INSTRUMENT_FLAGS_H
#define MPP_INSTRUMENT_FLAGS_H

#include <stddef.h>

/* A growable NULL-terminated vector of owned strings. */
struct mpp_argv {
	char **v;
	int n, cap;
};

/* Appends a copy of s. Returns 0 or -1 (out of memory). */
int mpp_argv_push(struct mpp_argv *a, const char *s);
void mpp_argv_free(struct mpp_argv *a);

/* Appends the parse-relevant flags of a compiler command line. Relative
 * paths of -I and friends are made absolute against `dir` when it is not
 * NULL. Returns 0 or -1. */
int mpp_flags_filter(struct mpp_argv *out, char *const *args, int nargs,
		     const char *dir);

/* Appends the include flags the MPI wrapper `compiler` adds (nothing if it
 * is not a wrapper). Returns 0 or -1. */
int mpp_flags_mpi(struct mpp_argv *out, const char *compiler);

/* Appends the flags of `abs_src`'s entry in BUILD_DIR/compile_commands.json
 * (filtered as above, with its compiler's MPI flags). Returns 0, 1 if the
 * database has no entry for the file, -1 with a message in err if there is
 * no readable database. */
int mpp_flags_compdb(struct mpp_argv *out, const char *build_dir,
		     const char *abs_src, char *err, size_t errlen);

#endif
