/*
 * child.h: a program the daemon runs and waits for (the retraining's
 * mpipredict-train, the extension policy's scontrol).
 */
#ifndef MPP_SERVER_CHILD_H
#define MPP_SERVER_CHILD_H

#include <sys/types.h>

/* Starts argv[0]'s program (found on PATH when search is set, else
 * argv[0] is the path) with stdin on /dev/null, stdout and stderr on
 * out_fd and err_fd when >= 0, and the signals the daemon blocks
 * (SIGTERM, SIGINT) or ignores (SIGPIPE) back to their defaults.
 * 0 with *pid, or an errno value. */
int mpp_child_spawn(char *const argv[], int search, int out_fd, int err_fd,
		    pid_t *pid);

#endif
