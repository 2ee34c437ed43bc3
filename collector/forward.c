/*
 * forward.c: the runtime's half of forwarding rows to the daemon: the
 * outbox file and the detached mpipredict-collect. See forward.h.
 * Not for: the HTTP request and the configuration file (collect.c and
 * common/client.c, in the forwarder process).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/forward.h"

#define PFX                 "mpipredict: "
#define CLIENT_CONF_DEFAULT "/etc/mpipredict/client.conf"

extern char **environ;

int mpp_forward_enabled(void)
{
	const char *on = getenv("MPIPREDICT_FORWARD");
	const char *url = getenv("MPIPREDICT_URL");
	const char *conf = getenv("MPIPREDICT_CLIENT_CONF");

	if (on && !strcmp(on, "0"))
		return 0;
	if (url && *url)
		return 1;
	if (!conf || !*conf)
		conf = CLIENT_CONF_DEFAULT;
	return access(conf, F_OK) == 0;
}

/* header + row to <outbox>/<run_id>.csv through a temporary name, so that
 * a forwarder never sends half a file. Returns 0, or -1 with err. */
static int write_outbox(const char *outbox, const char *run_id,
			const char *header, const char *row, char *err,
			size_t errlen)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	size_t hl = strlen(header), rl = strlen(row);
	char *buf;
	ssize_t w;
	int fd;

	if (mkdir(outbox, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", outbox,
			 strerror(errno));
		return -1;
	}
	/* The temporary name starts with '.' and does not end in .csv: the
	 * forwarder skips it. */
	if ((size_t)snprintf(tmp, sizeof tmp, "%s/.%s.tmp.%ld", outbox, run_id,
			     (long)getpid()) >= sizeof tmp ||
	    (size_t)snprintf(dst, sizeof dst, "%s/%s.csv", outbox, run_id) >=
		sizeof dst) {
		snprintf(err, errlen, "outbox path too long: %s", outbox);
		return -1;
	}
	buf = malloc(hl + rl);
	if (!buf) {
		snprintf(err, errlen, "out of memory writing %s", dst);
		return -1;
	}
	memcpy(buf, header, hl);
	memcpy(buf + hl, row, rl);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0666);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", tmp,
			 strerror(errno));
		free(buf);
		return -1;
	}
	w = write(fd, buf, hl + rl);
	free(buf);
	if (w != (ssize_t)(hl + rl) || close(fd) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 w < 0 ? strerror(errno) : "short write");
		if (w == (ssize_t)(hl + rl))
			fd = -1;
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, dst) != 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, dst,
			 strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int mpp_forward_collect_path(char *out, size_t len)
{
	const char *env = getenv("MPIPREDICT_COLLECT");
	char lib[PATH_MAX], *slash;
	Dl_info di;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK);
	}
	snprintf(out, len, "../bin/mpipredict-collect beside libmpipredict");
	if (!dladdr((void *)mpp_forward_row, &di) || !di.dli_fname ||
	    !realpath(di.dli_fname, lib))
		return -1;
	slash = strrchr(lib, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(out, len, "%s/../bin/mpipredict-collect", lib) >=
	    len)
		return -1;
	return access(out, X_OK);
}

/* prog with args, standard streams on /dev/null except stdout on out_fd
 * when >= 0, no other descriptor of the job, signals as a new program's,
 * in a session of its own. 0 with *pid, or an errno value. */
int mpp_spawn_detached(const char *prog, char *const argv[], int out_fd,
		       pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int rc;

	sigemptyset(&none);
	sigfillset(&dfl);
	sigdelset(&dfl, SIGKILL);
	sigdelset(&dfl, SIGSTOP);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return ENOMEM;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return ENOMEM;
	}
	rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc && out_fd >= 0)
		rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	else if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null",
						      O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
						      O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (!rc)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID |
						       POSIX_SPAWN_SETSIGMASK |
						       POSIX_SPAWN_SETSIGDEF);
	if (!rc)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(&at, &dfl);
	if (!rc)
		rc = posix_spawn(pid, prog, &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* mpipredict-collect --forward --quiet OUTBOX, detached. */
static int spawn_forwarder(const char *prog, const char *outbox, char *err,
			   size_t errlen)
{
	char *argv[] = {"mpipredict-collect", "--forward", "--quiet",
			(char *)outbox, NULL};
	pid_t pid;
	int rc = mpp_spawn_detached(prog, argv, -1, &pid);

	if (rc) {
		snprintf(err, errlen, "cannot start %s: %s", prog,
			 strerror(rc));
		return -1;
	}
	return 0;
}

void mpp_forward_row(const char *runs_file, const char *run_id,
		     const char *header, const char *row)
{
	char outbox[PATH_MAX], prog[PATH_MAX], err[3 * PATH_MAX];
	const char *slash;
	int n;

	if (!mpp_forward_enabled())
		return;
	slash = strrchr(runs_file, '/');
	if (slash)
		n = snprintf(outbox, sizeof outbox, "%.*s/outbox",
			     (int)(slash - runs_file), runs_file);
	else
		n = snprintf(outbox, sizeof outbox, "outbox");
	if (n < 0 || (size_t)n >= sizeof outbox) {
		fprintf(stderr, PFX "runs path too long to forward: %s\n",
			runs_file);
		return;
	}
	if (write_outbox(outbox, run_id, header, row, err, sizeof err) < 0) {
		fprintf(stderr, PFX "%s; the row was not forwarded\n", err);
		return;
	}
	if (mpp_forward_collect_path(prog, sizeof prog) < 0) {
		fprintf(stderr,
			PFX "cannot find %s (set MPIPREDICT_COLLECT); the row "
			    "waits in %s\n",
			prog, outbox);
		return;
	}
	if (spawn_forwarder(prog, outbox, err, sizeof err) < 0)
		fprintf(stderr, PFX "%s; the row waits in %s\n", err, outbox);
}
