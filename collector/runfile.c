/*
 * runfile.c: choose, lock and append to a runs file. See runfile.h.
 * Not for: building the row text (row.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/runfile.h"

#define DEFAULT_TARGET "mpipredict-runs/"

/* mkdir -p; returns 0 or -1 with errno. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];
	size_t i, n = strlen(dir);

	if (n == 0)
		return 0;
	if (n >= sizeof p) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(p, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return -1;
		p[i] = dir[i];
	}
	return 0;
}

/* The app name as a file name: anything but [A-Za-z0-9._+-] becomes '_'. */
static void safe_name(const char *app, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; app[i] && i + 1 < outlen; i++) {
		char c = app[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || strchr("._+-", c)
			     ? c
			     : '_';
	}
	out[i] = '\0';
	if (!strcmp(out, "") || !strcmp(out, ".") || !strcmp(out, ".."))
		snprintf(out, outlen, "app");
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Does fd (locked) start with header? 1 yes, 0 no, -1 error. */
static int header_matches(int fd, const char *header)
{
	size_t n = strlen(header), off = 0;
	char *got = malloc(n);
	ssize_t r;
	int same;

	if (!got)
		return -1;
	while (off < n) {
		r = pread(fd, got + off, n - off, (off_t)off);
		if (r < 0) {
			free(got);
			return -1;
		}
		if (r == 0)
			break;
		off += (size_t)r;
	}
	same = off == n && memcmp(got, header, n) == 0;
	free(got);
	return same;
}

/* Opens path for appending, creating it when missing, never through a
 * symbolic link (a link planted in a shared runs directory must not send
 * the row to another user's file). Returns the fd, or -1 with err filled;
 * *created says whether this call made the file. */
static int open_runs(const char *path, int *created, char *err, size_t errlen)
{
	int fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);

	*created = 0;
	if (fd < 0 && errno == ENOENT) {
		fd = open(path,
			  O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW |
			      O_CLOEXEC,
			  0666);
		*created = fd >= 0;
		/* Made by another writer meanwhile (or a dangling link):
		 * open what is there now. */
		if (fd < 0 && errno == EEXIST)
			fd = open(path,
				  O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0 && errno == ELOOP)
		snprintf(err, errlen,
			 "cannot open %s: it is a symbolic link, not followed",
			 path);
	else if (fd < 0)
		snprintf(err, errlen, "cannot open %s: %s", path,
			 strerror(errno));
	return fd;
}

/* Append to one file. Returns 0, 1 when the header differs (nothing
 * written), 2 when the file was removed while this call waited for its lock
 * (open it again), -1 on error with err filled. */
static int append_to(const char *path, const char *header, const char *row,
		     char *err, size_t errlen)
{
	struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	struct stat st, now;
	char *buf = NULL, last = '\n';
	size_t hl = strlen(header), rl = strlen(row), len;
	ssize_t w;
	int fd, rc = -1, same, created;

	fd = open_runs(path, &created, err, errlen);
	if (fd < 0)
		return -1;
	while (fcntl(fd, F_SETLKW, &lk) != 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "cannot lock %s: %s", path,
				 strerror(errno));
			goto out;
		}
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot stat %s: %s", path,
			 strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode) && st.st_nlink == 0) {
		/* A writer that could not fill it removed the new file. */
		rc = 2;
		goto out;
	}
	if (st.st_size > 0) {
		same = header_matches(fd, header);
		if (same < 0) {
			snprintf(err, errlen, "cannot read %s: %s", path,
				 strerror(errno));
			goto out;
		}
		if (!same) {
			rc = 1;
			goto out;
		}
		/* A file that does not end in a newline (damaged by something
		 * else) gets one first, so that our row stands on its own. */
		if (pread(fd, &last, 1, st.st_size - 1) != 1)
			last = '\n';
	}
	buf = malloc(hl + rl + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory writing %s", path);
		goto out;
	}
	len = 0;
	if (st.st_size == 0) {
		memcpy(buf, header, hl);
		len = hl;
	} else if (last != '\n') {
		buf[len++] = '\n';
	}
	memcpy(buf + len, row, rl);
	len += rl;
	w = write(fd, buf, len);
	if (w != (ssize_t)len) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 w < 0 ? strerror(errno) : "short write");
		if (w > 0 && ftruncate(fd, st.st_size) != 0)
			snprintf(err, errlen,
				 "cannot write %s, and a partial row remains",
				 path);
		/* A file this call made, still empty (a full disk): removed
		 * under the lock rather than left as a 0-byte .csv. A writer
		 * waiting for the lock sees it unlinked and starts over. */
		else if (created && S_ISREG(st.st_mode) && st.st_size == 0 &&
			 lstat(path, &now) == 0 && now.st_ino == st.st_ino &&
			 now.st_dev == st.st_dev)
			unlink(path);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	close(fd); /* releases the lock */
	return rc;
}

/* append_to(), opening again while a new file is removed under it. */
static int append_retry(const char *path, const char *header, const char *row,
			char *err, size_t errlen)
{
	int rc = 2;

	for (int i = 0; i < 16 && rc == 2; i++)
		rc = append_to(path, header, row, err, errlen);
	if (rc == 2) {
		snprintf(err, errlen, "cannot write %s: removed while waiting",
			 path);
		rc = -1;
	}
	return rc;
}

/* A directory unless it names a .csv file or an existing file: a user who
 * writes MPIPREDICT_RUNS=/some/new/dir means a folder. */
static int target_is_dir(const char *target)
{
	size_t tl = strlen(target);
	struct stat st;

	if (target[tl - 1] == '/')
		return 1;
	if (stat(target, &st) == 0)
		return S_ISDIR(st.st_mode);
	return !(tl > 4 && strcmp(target + tl - 4, ".csv") == 0);
}

int mpp_runfile_dir(const char *target, char *dir, size_t len)
{
	const char *slash;
	size_t n;

	if (!target || !*target)
		target = DEFAULT_TARGET;
	n = strlen(target);
	if (!target_is_dir(target)) {
		slash = strrchr(target, '/');
		n = slash ? (size_t)(slash - target) : 0;
		if (!slash) {
			target = ".";
			n = 1;
		} else if (n == 0) {
			n = 1; /* "/x.csv": the root */
		}
	}
	while (n > 1 && target[n - 1] == '/')
		n--;
	if (n >= len)
		return -1;
	memcpy(dir, target, n);
	dir[n] = '\0';
	return 0;
}

int mpp_runfile_append(const char *target, const char *app, const char *header,
		       const char *row, char *path, size_t pathlen, char *err,
		       size_t errlen)
{
	char file[PATH_MAX], sib[PATH_MAX], name[256];
	const char *dot, *slash;
	size_t tl;
	int rc, is_dir;

	if (!target || !*target)
		target = DEFAULT_TARGET;
	tl = strlen(target);
	is_dir = target_is_dir(target);
	if (is_dir) {
		safe_name(app, name, sizeof name);
		rc = snprintf(file, sizeof file, "%s%s%s.csv", target,
			      target[tl - 1] == '/' ? "" : "/", name);
	} else {
		rc = snprintf(file, sizeof file, "%s", target);
	}
	if (rc < 0 || (size_t)rc >= sizeof file) {
		snprintf(err, errlen, "runs path too long: %s", target);
		return -1;
	}
	/* The file's folder, created if missing. */
	slash = strrchr(file, '/');
	if (slash && slash != file) {
		memcpy(sib, file, (size_t)(slash - file));
		sib[slash - file] = '\0';
		if (make_dirs(sib) != 0) {
			snprintf(err, errlen, "cannot create directory %s: %s",
				 sib, strerror(errno));
			return -1;
		}
	}
	rc = append_retry(file, header, row, err, errlen);
	if (rc == 1) {
		/* Another build's file: the sibling <stem>.<hash>.csv. */
		slash = strrchr(file, '/');
		dot = strrchr(file, '.');
		if (!dot || (slash && dot < slash))
			dot = file + strlen(file);
		rc = snprintf(sib, sizeof sib, "%.*s.%08x%s", (int)(dot - file),
			      file, (unsigned)fnv1a(header), dot);
		if (rc < 0 || (size_t)rc >= sizeof sib) {
			snprintf(err, errlen, "runs path too long: %s", file);
			return -1;
		}
		memcpy(file, sib, (size_t)rc + 1);
		rc = append_retry(file, header, row, err, errlen);
		if (rc == 1) {
			snprintf(
			    err, errlen,
			    "%s has another header; the row was not written",
			    file);
			return -1;
		}
	}
	if (rc == 0 && path)
		snprintf(path, pathlen, "%s", file);
	return rc;
}
