/*
 * runfile.h: append one run row to the runs file of an app, safely.
 * Internal to the collector part (libmpipredict and mpipredict-collect).
 *
 * Where: `target` is MPIPREDICT_RUNS (NULL or "" means "mpipredict-runs/").
 * A target that ends in '/', is an existing directory, or does not exist
 * and does not end in ".csv" is a directory holding <app>.csv; a target
 * ending in ".csv" or naming an existing file is the file itself. Missing
 * folders on the way are created.
 *
 * How: the file is opened for appending, never through a symbolic link
 * (O_NOFOLLOW: a link planted in a shared runs directory is refused with an
 * error naming it), and locked (fcntl write lock, whole file); a new (empty)
 * file gets the header and the row in one write(2), and when that fails (a
 * full disk) the file this call created is removed, not left empty;
 * an existing file gets the row in one write(2) only when its first line is
 * exactly `header`. A file with another header (another build) is left
 * untouched and the row goes to a sibling, <stem>.<hash of header>.csv, with
 * the same rules. A failed or short write is truncated away, so a reader
 * never sees part of a row. Concurrent writers on one host or over a file
 * system with working fcntl locks never interleave.
 */
#ifndef MPP_RUNFILE_H
#define MPP_RUNFILE_H

#include <stddef.h>

/* Append row (one line, ending in '\n') under header (one line, ending in
 * '\n'). On success returns 0 and, when path is not NULL, puts the file used
 * in path. On failure returns -1 and err holds one line naming the file. */
int mpp_runfile_append(const char *target, const char *app, const char *header,
		       const char *row, char *path, size_t pathlen, char *err,
		       size_t errlen);

/* The folder that holds target's runs file (target as above), without a
 * trailing '/': "mpipredict-runs" by default, "." for "x.csv". The
 * forwarder's default outbox is <that>/outbox, as the runtime's. Returns
 * 0, or -1 when it does not fit in len. */
int mpp_runfile_dir(const char *target, char *dir, size_t len);

#endif
