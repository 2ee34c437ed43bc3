/*
 * ingest.c: one worker thread and a short queue for POST /v1/runs and
 * POST /v1/jobs (see
 * ingest.h). A body is at most --max-body bytes, and only a few may wait:
 * past that a client gets 503 at once rather than a growing backlog.
 */
#include "server/ingest.h"

#include <pthread.h>
#include <stdlib.h>

#define MAX_WAITING 8

struct job {
	struct job *next;
	mpp_ingest_fn fn;
	const char *body;
	size_t len;
	mpp_reply *reply;
	void (*done)(void *);
	void *ctx;
};

struct mpp_ingest {
	const mpp_api *api;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *head, *tail;
	size_t waiting;
	int stopping;
};

static void *work(void *arg)
{
	mpp_ingest *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->head == NULL && !w->stopping)
			pthread_cond_wait(&w->cond, &w->lock);
		struct job *j = w->head;
		if (j == NULL)
			break;
		w->head = j->next;
		if (w->head == NULL)
			w->tail = NULL;
		w->waiting--;
		int stopping = w->stopping;
		pthread_mutex_unlock(&w->lock);
		if (stopping)
			mpp_api_error(j->reply, 503,
				      "body: the daemon is shutting down");
		else
			j->fn(w->api, j->body, j->len, j->reply);
		j->done(j->ctx);
		free(j);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

mpp_ingest *mpp_ingest_start(const mpp_api *api)
{
	mpp_ingest *w = calloc(1, sizeof *w);
	if (w == NULL)
		return NULL;
	w->api = api;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (pthread_create(&w->thread, NULL, work, w) != 0) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	pthread_setname_np(w->thread, "mpp-ingest");
	return w;
}

int mpp_ingest_submit(mpp_ingest *w, mpp_ingest_fn fn, const char *body,
		      size_t len, mpp_reply *reply, void (*done)(void *),
		      void *ctx)
{
	struct job *j = malloc(sizeof *j);
	if (j == NULL)
		return -1;
	*j = (struct job){NULL, fn, body, len, reply, done, ctx};
	pthread_mutex_lock(&w->lock);
	if (w->stopping || w->waiting >= MAX_WAITING) {
		pthread_mutex_unlock(&w->lock);
		free(j);
		return -1;
	}
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	w->waiting++;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

void mpp_ingest_stop(mpp_ingest *w)
{
	pthread_mutex_lock(&w->lock);
	w->stopping = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
}

void mpp_ingest_free(mpp_ingest *w)
{
	if (w == NULL)
		return;
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
