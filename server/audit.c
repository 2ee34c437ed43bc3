/*
 * audit.c: a mutex-guarded linked queue of prediction records (see
 * audit.h). Each record lives in one allocation with its strings, so a push
 * is one malloc and a short critical section; the taker is signalled only
 * when a full batch is waiting, so a busy daemon does not pay a futex wake
 * per request.
 */
#include "server/audit.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct node {
	struct node *next;
	mpp_prediction_rec rec;
	char strings[];
};

struct mpp_audit {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct node *head, *tail;
	size_t n, max, batch;
	size_t dropped;
	int closed;
};

mpp_audit *mpp_audit_new(size_t max, size_t batch)
{
	mpp_audit *q = calloc(1, sizeof *q);
	if (q == NULL)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cond, &ca);
	pthread_condattr_destroy(&ca);
	q->max = max;
	q->batch = batch ? batch : 1;
	return q;
}

void mpp_audit_free(mpp_audit *q)
{
	if (q == NULL)
		return;
	while (q->head) {
		struct node *n = q->head;
		q->head = n->next;
		free(n);
	}
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

static size_t slen(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* Copies s into *p and returns the copy (NULL stays NULL). */
static const char *put(char **p, const char *s)
{
	if (s == NULL)
		return NULL;
	size_t n = strlen(s) + 1;
	memcpy(*p, s, n);
	const char *copy = *p;
	*p += n;
	return copy;
}

int mpp_audit_push(mpp_audit *q, const mpp_prediction_rec *r)
{
	size_t len = slen(r->job_id) + slen(r->app) + slen(r->basis) +
		     slen(r->user) + slen(r->partition);
	struct node *n = malloc(sizeof *n + len);
	if (n == NULL)
		return -1;
	n->next = NULL;
	n->rec = *r;
	char *p = n->strings;
	n->rec.job_id = put(&p, r->job_id);
	n->rec.app = put(&p, r->app);
	n->rec.basis = put(&p, r->basis);
	n->rec.user = put(&p, r->user);
	n->rec.partition = put(&p, r->partition);

	pthread_mutex_lock(&q->lock);
	if (q->n >= q->max) {
		q->dropped++;
		pthread_mutex_unlock(&q->lock);
		free(n);
		return -1;
	}
	if (q->tail)
		q->tail->next = n;
	else
		q->head = n;
	q->tail = n;
	int wake = ++q->n == q->batch;
	pthread_mutex_unlock(&q->lock);
	if (wake)
		pthread_cond_signal(&q->cond);
	return 0;
}

long mpp_audit_wait(mpp_audit *q, int timeout_ms, int wake_on_batch)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&q->lock);
	while (!q->closed && (!wake_on_batch || q->n < q->batch))
		if (pthread_cond_timedwait(&q->cond, &q->lock, &until) ==
		    ETIMEDOUT)
			break;
	long n = q->closed ? -1 : (long)q->n;
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t mpp_audit_dropped(mpp_audit *q)
{
	pthread_mutex_lock(&q->lock);
	size_t n = q->dropped;
	q->dropped = 0;
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t mpp_audit_take(mpp_audit *q, size_t max, mpp_audit_batch *b)
{
	memset(b, 0, sizeof *b);
	pthread_mutex_lock(&q->lock);
	size_t n = q->n < max ? q->n : max;
	struct node *first = q->head, *last = NULL;
	for (size_t i = 0; i < n; i++)
		last = last ? last->next : first;
	if (n > 0) {
		q->head = last->next;
		if (q->head == NULL)
			q->tail = NULL;
		last->next = NULL;
		q->n -= n;
	}
	pthread_mutex_unlock(&q->lock);
	if (n == 0)
		return 0;

	b->recs = malloc(n * sizeof *b->recs);
	b->blocks = malloc(n * sizeof *b->blocks);
	if (b->recs == NULL || b->blocks == NULL) {
		/* Out of memory: the records are lost, like a dropped push. */
		free(b->recs);
		free(b->blocks);
		memset(b, 0, sizeof *b);
		while (first) {
			struct node *next = first->next;
			free(first);
			first = next;
		}
		return 0;
	}
	for (struct node *x = first; x; x = x->next) {
		b->recs[b->n] = x->rec;
		b->blocks[b->n++] = x;
	}
	return b->n;
}

void mpp_audit_batch_free(mpp_audit_batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->blocks[i]);
	free(b->recs);
	free(b->blocks);
	memset(b, 0, sizeof *b);
}

void mpp_audit_close(mpp_audit *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = 1;
	pthread_mutex_unlock(&q->lock);
	pthread_cond_broadcast(&q->cond);
}
