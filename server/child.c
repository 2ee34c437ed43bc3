/*
 * child.c: a program the daemon runs (child.h).
 */
#include "server/child.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>

extern char **environ;

int mpp_child_spawn(char *const argv[], int search, int out_fd, int err_fd,
		    pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, defaults;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	/* The daemon blocks SIGTERM and SIGINT in every thread and ignores
	 * SIGPIPE; the child must get the defaults back. */
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGINT);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &defaults);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
					  POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (out_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (err_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	rc = search ? posix_spawnp(pid, argv[0], &fa, &at, argv, environ)
		    : posix_spawn(pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return rc;
}
