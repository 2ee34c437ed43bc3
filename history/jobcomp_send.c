/*
 * jobcomp_send.c: records to POST /v1/jobs, or to the spool (see
 * jobcomp_send.h). The daemon's answer is read with jansson, only for the
 * reason of a refusal.
 */
#include "history/jobcomp_send.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The append lock covers [0, FLUSH_AT), the flusher's the byte at
 * FLUSH_AT: fcntl locks may lie past the end of a file. */
#define FLUSH_AT ((off_t)1 << 40)
/* A body at most this large (the daemon's --max-body is 1 MiB). */
#define CHUNK (256 * 1024)
/* At most this much of the spool is read by one run. */
#define SPOOL_READ_MAX (8 * 1024 * 1024)
/* Not worth starting a request with less time than this left. */
#define MIN_LEFT_MS 50

enum post_result { POST_OK, POST_DOWN, POST_REFUSED };

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int lock(int fd, short type, off_t start, off_t len, int wait)
{
	struct flock lk = {.l_type = type,
			   .l_whence = SEEK_SET,
			   .l_start = start,
			   .l_len = len};
	int rc;
	while ((rc = fcntl(fd, wait ? F_SETLKW : F_SETLK, &lk)) != 0 &&
	       errno == EINTR)
		;
	return rc;
}

/* The daemon's "error" member, else the answer's first bytes. */
static void reason(const char *answer, char *out, size_t outlen)
{
	json_t *j = answer ? json_loads(answer, 0, NULL) : NULL;
	const char *e =
	    j ? json_string_value(json_object_get(j, "error")) : NULL;
	snprintf(out, outlen, "%.300s", e ? e : answer ? answer : "");
	json_decref(j);
}

/* One POST of text[0..len) with what is left of the time. */
static enum post_result post(const mpp_client_conf *c, long deadline,
			     const char *text, size_t len, char *why,
			     size_t whylen)
{
	mpp_client_conf t = *c;
	long status = 0;
	char *answer = NULL, err[512], r[320];

	t.timeout_ms = deadline - now_ms();
	if (t.timeout_ms < MIN_LEFT_MS) {
		snprintf(why, whylen, "no time left within the timeout");
		return POST_DOWN;
	}
	if (mpp_client_post(&t, "/v1/jobs", "text/plain; charset=utf-8", text,
			    len, &status, &answer, err, sizeof err) != 0) {
		snprintf(why, whylen, "%s", err);
		free(answer);
		return POST_DOWN;
	}
	reason(answer, r, sizeof r);
	free(answer);
	if (status == 200)
		return POST_OK;
	snprintf(why, whylen, "HTTP %ld: %s", status, r);
	/* 408 and 429 (over the daemon's --write-rate) say "later", as a
	 * 5xx does: the record is spooled, not lost. */
	return status >= 500 || status < 400 || status == 408 || status == 429
		   ? POST_DOWN
		   : POST_REFUSED;
}

/* Posts text in chunks of whole lines; *sent: the bytes taken. */
static enum post_result post_lines(const mpp_client_conf *c, long deadline,
				   const char *text, size_t len, size_t *sent,
				   char *why, size_t whylen)
{
	*sent = 0;
	while (*sent < len) {
		size_t n = len - *sent;
		if (n > CHUNK) {
			const char *p = text + *sent;
			n = CHUNK;
			while (n > 0 && p[n - 1] != '\n')
				n--;
			if (n == 0) /* one line longer than a chunk */
				n = len - *sent;
		}
		enum post_result r =
		    post(c, deadline, text + *sent, n, why, whylen);
		if (r != POST_OK)
			return r;
		*sent += n;
	}
	return POST_OK;
}

/* Appends text to the spool in one write(2) under the append lock. */
static int spool_append(const char *spool, const char *text, size_t len,
			void (*log)(const char *))
{
	char msg[1024];
	int fd = open(spool, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || lock(fd, F_WRLCK, 0, FLUSH_AT, 1) != 0) {
		snprintf(msg, sizeof msg,
			 "%s: cannot append to the spool (%s); create its "
			 "directory, writable by Slurm's user, or give "
			 "--spool FILE",
			 spool, strerror(errno));
		log(msg);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ssize_t w = write(fd, text, len);
	int e = errno;
	if (w != (ssize_t)len) {
		/* Never leave half a record: a later reader would take the
		 * rest of it for the start of the next one. */
		struct stat st;
		if (w > 0 && fstat(fd, &st) == 0)
			(void)ftruncate(fd, st.st_size - w);
		snprintf(msg, sizeof msg, "%s: cannot append to the spool (%s)",
			 spool, w < 0 ? strerror(e) : "short write");
		log(msg);
		close(fd);
		return -1;
	}
	close(fd); /* releases the lock */
	return 0;
}

/* Removes the first `sent` bytes of the spool, under the append lock. */
static void spool_cut(int fd, const char *spool, size_t sent,
		      void (*log)(const char *))
{
	struct stat st;
	char msg[1024];
	if (lock(fd, F_WRLCK, 0, FLUSH_AT, 1) != 0 || fstat(fd, &st) != 0)
		goto fail;
	size_t rest = (size_t)st.st_size > sent ? (size_t)st.st_size - sent : 0;
	char *buf = rest ? malloc(rest) : NULL;
	if (rest &&
	    (!buf || pread(fd, buf, rest, (off_t)sent) != (ssize_t)rest)) {
		free(buf);
		goto fail;
	}
	/* Records appended while this run was sending stay, in order. */
	if (ftruncate(fd, 0) != 0 ||
	    (rest && pwrite(fd, buf, rest, 0) != (ssize_t)rest)) {
		free(buf);
		goto fail;
	}
	free(buf);
	lock(fd, F_UNLCK, 0, FLUSH_AT, 0);
	return;
fail:
	snprintf(msg, sizeof msg,
		 "%s: sent to the daemon but not removed from the spool (%s); "
		 "sent again next time (a job sent twice updates its row)",
		 spool, strerror(errno));
	log(msg);
	lock(fd, F_UNLCK, 0, FLUSH_AT, 0);
}

/* Sends what the spool holds. POST_OK when it is empty or was sent (or
 * another run is sending it). */
static enum post_result spool_flush(const mpp_client_conf *c, long deadline,
				    const char *spool,
				    void (*log)(const char *))
{
	char msg[1024], why[512];
	int fd = open(spool, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return POST_OK; /* no spool yet: nothing kept */
	if (lock(fd, F_WRLCK, FLUSH_AT, 1, 0) != 0) {
		close(fd); /* another run is sending it */
		return POST_OK;
	}
	struct stat st;
	char *buf = NULL;
	ssize_t got = 0;
	if (lock(fd, F_RDLCK, 0, FLUSH_AT, 1) == 0 && fstat(fd, &st) == 0 &&
	    st.st_size > 0) {
		size_t n = st.st_size > SPOOL_READ_MAX ? SPOOL_READ_MAX
						       : (size_t)st.st_size;
		buf = malloc(n);
		got = buf ? pread(fd, buf, n, 0) : -1;
	}
	lock(fd, F_UNLCK, 0, FLUSH_AT, 0);
	/* Whole records only. */
	size_t len = got > 0 ? (size_t)got : 0;
	while (len > 0 && buf[len - 1] != '\n')
		len--;
	enum post_result r = POST_OK;
	if (len > 0) {
		size_t sent = 0;
		r = post_lines(c, deadline, buf, len, &sent, why, sizeof why);
		if (sent > 0)
			spool_cut(fd, spool, sent, log);
		if (r != POST_OK) {
			snprintf(msg, sizeof msg,
				 "%s: %zu bytes of the spool not sent (%s)%s",
				 spool, len - sent, why,
				 r == POST_REFUSED
				     ? "; kept: fix or remove the record "
				       "the daemon names"
				     : "; kept for the next run");
			log(msg);
		}
	}
	free(buf);
	close(fd); /* releases the flusher's lock */
	return r;
}

enum mpp_send_result mpp_jobcomp_send(const mpp_client_conf *c,
				      const char *spool, const char *text,
				      size_t len, void (*log)(const char *msg))
{
	long deadline = now_ms() + c->timeout_ms;
	char msg[1024], why[512] = "";
	size_t sent = 0;
	/* The spool first: records reach the store in the order the jobs
	 * ended, and a daemon that is away is found out once. */
	enum post_result r = spool_flush(c, deadline, spool, log);
	if (r == POST_DOWN) {
		snprintf(why, sizeof why, "the daemon is away");
	} else {
		/* A spool the daemon refused was logged and kept; it does
		 * not hold back the records of this run. */
		r = POST_OK;
		if (len > 0)
			r = post_lines(c, deadline, text, len, &sent, why,
				       sizeof why);
	}
	if (r == POST_OK)
		return MPP_SEND_STORED;
	if (r == POST_REFUSED && sent == 0) {
		snprintf(msg, sizeof msg, "the daemon refused the record (%s)",
			 why);
		log(msg);
		return MPP_SEND_REFUSED;
	}
	if (r == POST_REFUSED) {
		/* A later chunk refused: the earlier ones are stored. */
		snprintf(msg, sizeof msg,
			 "the daemon refused part of the records (%s)", why);
		log(msg);
		return MPP_SEND_REFUSED;
	}
	if (spool_append(spool, text + sent, len - sent, log) != 0)
		return MPP_SEND_FAILED;
	snprintf(msg, sizeof msg, "%s (%s); kept in %s for the next run",
		 c->url, why, spool);
	log(msg);
	return MPP_SEND_SPOOLED;
}
