/*
 * httpc: a raw HTTP/1.1 client for the server tests, for what curl cannot
 * do on purpose: send a request one byte per second, open many connections
 * at once, stream a huge body and stop as soon as the server answers.
 * Test helper only; not installed.
 *
 *   httpc trickle PORT          one byte a second until the server closes;
 *                               prints "closed after N bytes"
 *   httpc flood PORT N PATH [BODY]
 *                               N connections at once, each GET PATH, or
 *                               POST BODY (a JSON text) to PATH; prints
 *                               "connected C answered A status200 K"
 *   httpc burst PORT N R PATH [BODY]
 *                               N keep-alive connections at once, each
 *                               sending R requests back to back (the next
 *                               as soon as an answer is in), as a job
 *                               array's submissions reach the daemon;
 *                               prints "begun" once every connection has
 *                               sent its first request, then "sent S
 *                               answered A status200 K"
 *   httpc loop PORT FILE STOP   POST FILE to /v1/predict again and again
 *                               on one keep-alive connection until the
 *                               file STOP exists; prints "STATUS VERSION"
 *   httpc hold PORT N SECONDS   N idle connections for SECONDS; prints
 *                               "held N" once they are open
 *   httpc big PORT BYTES MODE   POST /v1/predict with a BYTES body, MODE
 *                               "length" (Content-Length) or "chunked";
 *                               prints "status S sent B"
 *   httpc raw PORT FILE         sends FILE's bytes as they are (NULs,
 *                               repeated headers) and prints "status S"
 *                               of the answer (0: closed without one)
 *   httpc reset PORT FILE MS    sends FILE's bytes, waits MS ms without
 *                               reading, and resets the connection (RST);
 *                               prints "reset"
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int connect_to(int port, int nonblock)
{
	int fd =
	    socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((unsigned short)port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The status code of a response that starts in buf, or 0. */
static int status_of(const char *buf)
{
	int st = 0;
	if (sscanf(buf, "HTTP/1.%*d %d", &st) != 1)
		return 0;
	return st;
}

static int trickle(int port)
{
	const char req[] = "POST /v1/predict HTTP/1.1\r\nHost: localhost\r\n"
			   "Content-Type: application/json\r\n"
			   "Content-Length: 20\r\n\r\n{\"app\":\"trickle!!\"}";
	int fd = connect_to(port, 0);
	if (fd < 0) {
		perror("connect");
		return 2;
	}
	size_t sent = 0;
	for (; sent < sizeof req - 1; sent++) {
		if (send(fd, req + sent, 1, MSG_NOSIGNAL) != 1)
			break;
		struct pollfd p = {fd, POLLIN, 0};
		/* Wait a second, unless the server closes first. */
		if (poll(&p, 1, 1000) > 0) {
			char b[512];
			ssize_t n = recv(fd, b, sizeof b - 1, 0);
			if (n <= 0)
				break;
		}
	}
	close(fd);
	printf("closed after %zu bytes of %zu\n", sent, sizeof req - 1);
	return 0;
}

static int flood(int port, int n, const char *path, const char *body)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	struct pollfd *p = calloc((size_t)n, sizeof *p);
	int *state =
	    calloc((size_t)n, sizeof *state); /* 0 send, 1 read, 2 done */
	char req[4096];
	if (body == NULL)
		snprintf(req, sizeof req,
			 "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: "
			 "close\r\n\r\n",
			 path);
	else
		snprintf(req, sizeof req,
			 "POST %s HTTP/1.1\r\nHost: localhost\r\nConnection: "
			 "close\r\nContent-Type: application/json\r\n"
			 "Content-Length: %zu\r\n\r\n%s",
			 path, strlen(body), body);
	int connected = 0, answered = 0, ok = 0;
	for (int i = 0; i < n; i++) {
		p[i].fd = connect_to(port, 1);
		p[i].events = POLLOUT;
		if (p[i].fd < 0)
			state[i] = 2;
	}
	/* Every connection is established before any request is sent, so
	 * that all of them are open at the same time. */
	time_t until = time(NULL) + 60;
	for (int pending = n; pending > 0 && time(NULL) < until;) {
		if (poll(p, (nfds_t)n, 1000) < 0)
			break;
		pending = 0;
		for (int i = 0; i < n; i++) {
			if (state[i] != 0)
				continue;
			if (p[i].revents & (POLLERR | POLLHUP)) {
				state[i] = 2;
				close(p[i].fd);
				p[i].fd = -1;
			} else if (p[i].revents & POLLOUT) {
				connected++;
				state[i] = 1;
				p[i].events = 0;
			} else {
				pending++;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		if (state[i] != 1)
			continue;
		if (send(p[i].fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
			state[i] = 2;
			close(p[i].fd);
			p[i].fd = -1;
		}
		p[i].events = POLLIN;
	}
	for (int left = n; left > 0 && time(NULL) < until;) {
		if (poll(p, (nfds_t)n, 1000) < 0)
			break;
		left = 0;
		for (int i = 0; i < n; i++) {
			if (state[i] != 1)
				continue;
			if (!p[i].revents) {
				left++;
				continue;
			}
			char b[2048];
			ssize_t k = recv(p[i].fd, b, sizeof b - 1, 0);
			if (k > 0) {
				b[k] = '\0';
				answered++;
				ok += status_of(b) == 200;
			}
			state[i] = 2;
			close(p[i].fd);
			p[i].fd = -1;
		}
	}
	printf("connected %d answered %d status200 %d\n", connected, answered,
	       ok);
	free(p);
	free(state);
	return 0;
}

/* One connection of a burst: a response read so far, requests left. */
struct burst_conn {
	char buf[4096];
	size_t len;
	int left, waiting;
};

/* 1 when b->buf holds a whole response (headers and a Content-Length
 * body), with its status in *st. */
static int burst_whole(struct burst_conn *b, int *st)
{
	b->buf[b->len] = '\0';
	char *end = strstr(b->buf, "\r\n\r\n");
	if (end == NULL)
		return 0;
	const char *cl = strcasestr(b->buf, "\r\ncontent-length:");
	size_t body = (size_t)(end + 4 - b->buf);
	size_t want = cl ? strtoul(cl + 17, NULL, 10) : 0;
	if (b->len < body + want)
		return 0;
	*st = status_of(b->buf);
	return 1;
}

static int burst(int port, int n, int r, const char *path, const char *body)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	struct pollfd *p = calloc((size_t)n, sizeof *p);
	struct burst_conn *c = calloc((size_t)n, sizeof *c);
	char req[4096];
	int rlen =
	    body == NULL
		? snprintf(req, sizeof req,
			   "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path)
		: snprintf(req, sizeof req,
			   "POST %s HTTP/1.1\r\nHost: localhost\r\n"
			   "Content-Type: application/json\r\n"
			   "Content-Length: %zu\r\n\r\n%s",
			   path, strlen(body), body);
	long sent = 0, answered = 0, ok = 0;
	int open = 0;
	for (int i = 0; i < n; i++) {
		p[i].fd = connect_to(port, 0);
		p[i].events = POLLIN;
		c[i].left = r;
		open += p[i].fd >= 0;
	}
	/* The first request of each, then the rest as answers come. */
	for (int i = 0; i < n; i++) {
		if (p[i].fd < 0)
			continue;
		if (send(p[i].fd, req, (size_t)rlen, MSG_NOSIGNAL) == rlen) {
			sent++;
			c[i].left--;
			c[i].waiting = 1;
		} else {
			close(p[i].fd);
			p[i].fd = -1;
			open--;
		}
	}
	printf("begun\n");
	fflush(stdout);
	time_t until = time(NULL) + 120;
	while (open > 0 && time(NULL) < until) {
		if (poll(p, (nfds_t)n, 1000) < 0)
			break;
		for (int i = 0; i < n; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			struct burst_conn *b = &c[i];
			ssize_t k = recv(p[i].fd, b->buf + b->len,
					 sizeof b->buf - 1 - b->len, 0);
			int st = 0;
			if (k > 0)
				b->len += (size_t)k;
			if (k > 0 && !burst_whole(b, &st) &&
			    b->len < sizeof b->buf - 1)
				continue;
			if (k <= 0 || st == 0) { /* closed, or not HTTP */
				close(p[i].fd);
				p[i].fd = -1;
				open--;
				continue;
			}
			answered++;
			ok += st == 200;
			b->len = 0;
			b->waiting = 0;
			if (b->left > 0 && send(p[i].fd, req, (size_t)rlen,
						MSG_NOSIGNAL) == rlen) {
				sent++;
				b->left--;
				b->waiting = 1;
				continue;
			}
			close(p[i].fd);
			p[i].fd = -1;
			open--;
		}
	}
	printf("sent %ld answered %ld status200 %ld\n", sent, answered, ok);
	free(p);
	free(c);
	return 0;
}

static int hold(int port, int n, int seconds)
{
	int *fds = calloc((size_t)n, sizeof *fds);
	int held = 0;
	for (int i = 0; i < n; i++) {
		fds[i] = connect_to(port, 0);
		held += fds[i] >= 0;
	}
	printf("held %d\n", held);
	fflush(stdout);
	sleep((unsigned)seconds);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return 0;
}

/* Reads one response on a keep-alive connection into buf (headers and a
 * Content-Length body); returns the body's offset, or -1. */
static long read_response(int fd, char *buf, size_t cap, size_t *len)
{
	*len = 0;
	for (;;) {
		buf[*len] = '\0';
		char *end = strstr(buf, "\r\n\r\n");
		if (end != NULL) {
			const char *cl = strcasestr(buf, "\r\ncontent-length:");
			size_t body = (size_t)(end + 4 - buf);
			size_t want = cl ? strtoul(cl + 17, NULL, 10) : 0;
			if (*len >= body + want)
				return (long)body;
		}
		if (*len + 1 >= cap)
			return -1;
		ssize_t k = recv(fd, buf + *len, cap - 1 - *len, 0);
		if (k <= 0)
			return -1;
		*len += (size_t)k;
	}
}

/* POSTs the body in FILE to /v1/predict over one keep-alive connection
 * until STOPFILE exists; prints "STATUS VERSION" per answer. */
static int loop(int port, const char *file, const char *stopfile)
{
	FILE *f = fopen(file, "r");
	static char body[65536], buf[65536];
	size_t blen = f ? fread(body, 1, sizeof body, f) : 0;
	if (f)
		fclose(f);
	/* One send per request: a separate body would wait for the delayed
	 * ACK of the headers (Nagle). */
	static char req[65536 + 256];
	int hlen = snprintf(req, sizeof req,
			    "POST /v1/predict HTTP/1.1\r\nHost: localhost\r\n"
			    "Content-Type: application/json\r\n"
			    "Content-Length: %zu\r\n\r\n",
			    blen);
	memcpy(req + hlen, body, blen);
	int fd = connect_to(port, 0);
	if (fd < 0) {
		perror("connect");
		return 2;
	}
	while (access(stopfile, F_OK) != 0) {
		size_t len;
		if (send(fd, req, (size_t)hlen + blen, MSG_NOSIGNAL) < 0) {
			printf("send-failed none\n");
			return 1;
		}
		long off = read_response(fd, buf, sizeof buf, &len);
		if (off < 0) {
			printf("connection-lost none\n");
			return 1;
		}
		json_t *j = json_loadb(buf + off, len - (size_t)off, 0, NULL);
		json_t *v =
		    json_object_get(json_object_get(j, "model"), "version");
		if (json_is_integer(v))
			printf("%d %lld\n", status_of(buf),
			       (long long)json_integer_value(v));
		else
			printf("%d none\n", status_of(buf));
		fflush(stdout);
		json_decref(j);
	}
	close(fd);
	return 0;
}

static int big(int port, long long bytes, int chunked)
{
	int fd = connect_to(port, 0);
	if (fd < 0) {
		perror("connect");
		return 2;
	}
	char head[256];
	if (chunked)
		snprintf(head, sizeof head,
			 "POST /v1/predict HTTP/1.1\r\nHost: localhost\r\n"
			 "Transfer-Encoding: chunked\r\n\r\n");
	else
		snprintf(head, sizeof head,
			 "POST /v1/predict HTTP/1.1\r\nHost: localhost\r\n"
			 "Content-Length: %lld\r\n\r\n",
			 bytes);
	send(fd, head, strlen(head), MSG_NOSIGNAL);
	static char block[65536 + 16];
	long long sent = 0;
	int status = 0;
	while (sent < bytes) {
		struct pollfd p = {fd, POLLIN | POLLOUT, 0};
		if (poll(&p, 1, 5000) <= 0)
			break;
		if (p.revents & POLLIN) {
			char b[1024];
			ssize_t k = recv(fd, b, sizeof b - 1, 0);
			if (k > 0) {
				b[k] = '\0';
				status = status_of(b);
			}
			break;
		}
		if (!(p.revents & POLLOUT))
			break;
		size_t n = 65536;
		if ((long long)n > bytes - sent)
			n = (size_t)(bytes - sent);
		size_t off = 0, len = n;
		memset(block, 'a', sizeof block);
		if (chunked) {
			off = (size_t)snprintf(block, 16, "%zx\r\n", n);
			len = off + n + 2;
			memcpy(block + off + n, "\r\n", 2);
		}
		ssize_t w = send(fd, block, len, MSG_NOSIGNAL);
		if (w <= 0)
			break;
		sent += (long long)n;
	}
	if (status == 0) {
		if (chunked && sent >= bytes)
			send(fd, "0\r\n\r\n", 5, MSG_NOSIGNAL);
		struct pollfd p = {fd, POLLIN, 0};
		char b[1024];
		if (poll(&p, 1, 10000) > 0) {
			ssize_t k = recv(fd, b, sizeof b - 1, 0);
			if (k > 0) {
				b[k] = '\0';
				status = status_of(b);
			}
		}
	}
	close(fd);
	printf("status %d sent %lld\n", status, sent);
	return 0;
}

/* FILE's bytes; NULL when unreadable. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	char *b = malloc(1 << 20);
	*len = b ? fread(b, 1, 1 << 20, f) : 0;
	fclose(f);
	return b;
}

static int raw(int port, const char *file)
{
	size_t len;
	char *req = slurp(file, &len);
	int fd = req ? connect_to(port, 0) : -1;
	if (fd < 0) {
		perror(file);
		free(req);
		return 2;
	}
	int ok = send(fd, req, len, MSG_NOSIGNAL) == (ssize_t)len;
	free(req);
	char buf[4096];
	size_t got = 0;
	while (ok && got < sizeof buf - 1) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 10000) <= 0)
			break;
		ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
		if (memmem(buf, got, "\r\n\r\n", 4) != NULL)
			break;
	}
	buf[got] = '\0';
	printf("status %d\n", status_of(buf));
	close(fd);
	return 0;
}

static int reset(int port, const char *file, int ms)
{
	size_t len;
	char *req = slurp(file, &len);
	int fd = req ? connect_to(port, 0) : -1;
	if (fd < 0) {
		perror(file);
		free(req);
		return 2;
	}
	if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		perror("send");
	free(req);
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	struct linger l = {1, 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(fd);
	printf("reset\n");
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && strcmp(argv[1], "trickle") == 0)
		return trickle(atoi(argv[2]));
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "flood") == 0)
		return flood(atoi(argv[2]), atoi(argv[3]), argv[4],
			     argc == 6 ? argv[5] : NULL);
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "burst") == 0)
		return burst(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
			     argv[5], argc == 7 ? argv[6] : NULL);
	if (argc == 5 && strcmp(argv[1], "loop") == 0)
		return loop(atoi(argv[2]), argv[3], argv[4]);
	if (argc == 5 && strcmp(argv[1], "hold") == 0)
		return hold(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 5 && strcmp(argv[1], "big") == 0)
		return big(atoi(argv[2]), atoll(argv[3]),
			   strcmp(argv[4], "chunked") == 0);
	if (argc == 4 && strcmp(argv[1], "raw") == 0)
		return raw(atoi(argv[2]), argv[3]);
	if (argc == 5 && strcmp(argv[1], "reset") == 0)
		return reset(atoi(argv[2]), argv[3], atoi(argv[4]));
	fprintf(stderr,
		"usage: httpc trickle PORT | flood PORT N PATH [BODY] | burst "
		"PORT N R PATH [BODY] | hold "
		"PORT N SECONDS | loop PORT FILE STOP | big PORT BYTES "
		"length|chunked | raw PORT FILE | reset PORT FILE MS\n");
	return 1;
}
