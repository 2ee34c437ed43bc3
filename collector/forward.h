/*
 * forward.h: hand a finished run's row to the centre's daemon without
 * making the job wait for it. Internal to libmpipredict (rank 0, at exit,
 * after the row went to the local runs file).
 *
 * When a daemon is configured (MPIPREDICT_URL set and not empty, or the
 * client configuration file exists: MPIPREDICT_CLIENT_CONF, default
 * /etc/mpipredict/client.conf; MPIPREDICT_FORWARD=0 turns this off), the
 * row (its header line and row line, nothing else) is written atomically
 * to <folder of the runs file>/outbox/<run_id>.csv and mpipredict-collect
 * --forward --quiet <outbox> is started detached (its own session,
 * standard streams on /dev/null, not waited for). The runtime never reads
 * the configuration itself nor touches the network: it must not pull
 * libcurl or libinih into users' programs, and posix_spawn (vfork-like in
 * glibc) costs the job about a millisecond whatever the daemon does.
 *
 * The forwarder is MPIPREDICT_COLLECT when set, else
 * ../bin/mpipredict-collect from the folder of libmpipredict.so (dladdr;
 * the build tree mirrors the install tree). Problems print one line on
 * stderr; the row then waits in the outbox for the next run or a manual
 * `mpipredict-collect --forward`.
 */
#ifndef MPP_FORWARD_H
#define MPP_FORWARD_H

#include <stddef.h>
#include <sys/types.h>

/* runs_file: the file the row was appended to; header and row: one line
 * each, ending in '\n'. */
void mpp_forward_row(const char *runs_file, const char *run_id,
		     const char *header, const char *row);

/* 1 when forwarding is on (the environment and the configuration file's
 * existence, as above), else 0. */
int mpp_forward_enabled(void);

/* The forwarder's path (also the progress sender's, progress.h):
 * MPIPREDICT_COLLECT, else beside this library. Returns 0 when out names
 * an executable file, else -1 (out still holds the path looked for, for
 * the message). */
/* prog with argv, standard streams on /dev/null except stdout on out_fd
 * when >= 0, no other descriptor of the job (MPI's sockets and pipes stay
 * the launcher's), signals as a new program's, in a session of its own.
 * 0 with *pid, or an errno value. Used by the forwarder and the progress
 * sender. */
int mpp_spawn_detached(const char *prog, char *const argv[], int out_fd,
		       pid_t *pid);

int mpp_forward_collect_path(char *out, size_t len);

#endif
