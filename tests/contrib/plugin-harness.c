/*
 * plugin-harness.c: loads job_submit_mpipredict.so the way slurmctld does
 * (dlopen, RTLD_NOW, init, job_submit..., fini) and submits made-up jobs to
 * it, so that the plugin's logic is tested in plain `make check`, also under
 * the sanitizers, without Slurm daemons. Linked with libslurm, which provides
 * the same slurm_xstrdup/slurm_xfree/logging functions slurmctld does: a
 * string the plugin frees or hands over with the wrong allocator breaks here.
 *
 *   plugin-harness PLUGIN [--script FILE] [--argv0 CMD] [--arg WORD]...
 *                  [--submit-line TEXT] [--time MIN] [--time-min MIN]
 *                  [--comment TEXT|--comment-file FILE] [--ntasks N]
 *                  [--partition NAME] [--jobs K] [--threads T]
 *                  [--interval-ms MS]
 *
 * Submits K jobs (default 1), from T threads at once (default 1), each
 * thread waiting MS between its jobs (default 0), and prints
 * one line per job: "comment=<...> time_limit=<N|unset> time_min=<N|unset>".
 * A job's argv is the script's name (with --script) or CMD (default
 * hostname, an srun job), then each --arg.
 * The plugin's log lines go to stderr, with one line per job,
 * "plugin-harness: job_submit took T ms", and at the end one line,
 * "plugin-harness: user-database lookups: init N, submit M": the harness
 * defines getpwnam/getpwuid(_r) itself (exported with -rdynamic, so the
 * plugin's calls land here before libc's) to count them.
 * Not for: anything but tests.
 */
#include <dlfcn.h>
#include <getopt.h>
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **ptr);

static int (*p_init)(void), (*p_fini)(void);
static int (*p_submit)(job_desc_msg_t *, uint32_t, char **);

#define MAX_ARGS 32

static struct {
	char *script, *argv0, *comment, *partition, *submit_line, *comment_buf;
	char *args[MAX_ARGS];
	int nargs;
	uint32_t time_limit, time_min, ntasks;
	int jobs, threads, interval_ms;
} o = {.time_limit = NO_VAL,
       .time_min = NO_VAL,
       .ntasks = NO_VAL,
       .jobs = 1,
       .threads = 1};

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures;

/* User-database lookups, counted apart while the plugin initialises
 * (phase 0) and while it sees jobs (phase 1). */
static atomic_int pwd_phase;
static atomic_long pwd_calls[2];

static void *next_symbol(const char *name)
{
	atomic_fetch_add(&pwd_calls[atomic_load(&pwd_phase)], 1);
	return dlsym(RTLD_NEXT, name);
}

int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len,
	       struct passwd **res)
{
	int (*f)(const char *, struct passwd *, char *, size_t,
		 struct passwd **);

	*(void **)&f = next_symbol("getpwnam_r");
	return f(name, pw, buf, len, res);
}

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len,
	       struct passwd **res)
{
	int (*f)(uid_t, struct passwd *, char *, size_t, struct passwd **);

	*(void **)&f = next_symbol("getpwuid_r");
	return f(uid, pw, buf, len, res);
}

struct passwd *getpwnam(const char *name)
{
	struct passwd *(*f)(const char *);

	*(void **)&f = next_symbol("getpwnam");
	return f(name);
}

struct passwd *getpwuid(uid_t uid)
{
	struct passwd *(*f)(uid_t);

	*(void **)&f = next_symbol("getpwuid");
	return f(uid);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void fmt_min(char *buf, size_t len, uint32_t v)
{
	if (v == NO_VAL)
		snprintf(buf, len, "unset");
	else
		snprintf(buf, len, "%u", v);
}

/* One job as sbatch would describe it; strings from Slurm's allocator, as
 * slurmctld's unpacking makes them. */
static void submit_one(void)
{
	job_desc_msg_t job;
	char *argv[MAX_ARGS + 2] = {NULL}, *err = NULL, tl[16], tm[16];
	struct timespec t0, t1;
	int rc;

	slurm_init_job_desc_msg(&job);
	job.user_id = getuid();
	job.group_id = getgid();
	job.time_limit = o.time_limit;
	job.time_min = o.time_min;
	job.num_tasks = o.ntasks;
	job.name = slurm_xstrdup("harness");
	job.work_dir = slurm_xstrdup("/tmp");
	if (o.comment)
		job.comment = slurm_xstrdup(o.comment);
	if (o.partition)
		job.partition = slurm_xstrdup(o.partition);
	if (o.submit_line)
		job.submit_line = slurm_xstrdup(o.submit_line);
	if (o.script) {
		job.script = slurm_xstrdup(o.script);
		argv[0] = slurm_xstrdup("job.sh");
	} else {
		argv[0] = slurm_xstrdup(o.argv0 ? o.argv0 : "hostname");
	}
	for (int i = 0; i < o.nargs; i++)
		argv[i + 1] = slurm_xstrdup(o.args[i]);
	job.argc = 1 + o.nargs;
	job.argv = argv;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = p_submit(&job, job.user_id, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fmt_min(tl, sizeof(tl), job.time_limit);
	fmt_min(tm, sizeof(tm), job.time_min);
	pthread_mutex_lock(&out_lock);
	if (rc != SLURM_SUCCESS)
		failures++;
	printf("comment=%s time_limit=%s time_min=%s\n",
	       job.comment ? job.comment : "", tl, tm);
	fflush(stdout);
	fprintf(stderr, "plugin-harness: job_submit took %.1f ms\n",
		(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (t1.tv_nsec - t0.tv_nsec) / 1e6);
	pthread_mutex_unlock(&out_lock);
	slurm_xfree((void **)&err);
	for (uint32_t i = 0; i < job.argc; i++)
		slurm_xfree((void **)&argv[i]);
	slurm_xfree((void **)&job.submit_line);
	slurm_xfree((void **)&job.comment);
	slurm_xfree((void **)&job.partition);
	slurm_xfree((void **)&job.script);
	slurm_xfree((void **)&job.name);
	slurm_xfree((void **)&job.work_dir);
}

static void *worker(void *arg)
{
	int n = *(int *)arg;

	for (int i = 0; i < n; i++) {
		if (i && o.interval_ms)
			usleep(o.interval_ms * 1000);
		submit_one();
	}
	return NULL;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: plugin-harness PLUGIN [--script FILE] [--argv0 CMD] "
		   "[--arg WORD]... [--submit-line TEXT] [--time MIN] "
		   "[--time-min MIN] [--comment TEXT|--comment-file FILE] "
		   "[--ntasks N] [--partition NAME] [--jobs K] [--threads T] "
		   "[--interval-ms MS]\n");
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"script", required_argument, NULL, 's'},
	    {"argv0", required_argument, NULL, 'a'},
	    {"arg", required_argument, NULL, 'g'},
	    {"submit-line", required_argument, NULL, 'L'},
	    {"comment-file", required_argument, NULL, 'C'},
	    {"time", required_argument, NULL, 't'},
	    {"time-min", required_argument, NULL, 'm'},
	    {"comment", required_argument, NULL, 'c'},
	    {"ntasks", required_argument, NULL, 'n'},
	    {"partition", required_argument, NULL, 'P'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"threads", required_argument, NULL, 'T'},
	    {"interval-ms", required_argument, NULL, 'i'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	pthread_t tid[64];
	int per[64];
	void *h;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!(o.script = read_file(optarg))) {
				fprintf(stderr,
					"plugin-harness: cannot read %s\n",
					optarg);
				return 2;
			}
			break;
		case 'a':
			o.argv0 = optarg;
			break;
		case 'g':
			if (o.nargs == MAX_ARGS)
				return usage(stderr, 1);
			o.args[o.nargs++] = optarg;
			break;
		case 'L':
			o.submit_line = optarg;
			break;
		case 'C':
			free(o.comment_buf);
			if (!(o.comment = o.comment_buf = read_file(optarg))) {
				fprintf(stderr,
					"plugin-harness: cannot read %s\n",
					optarg);
				return 2;
			}
			o.comment[strcspn(o.comment, "\n")] = '\0';
			break;
		case 't':
			o.time_limit = (uint32_t)atol(optarg);
			break;
		case 'm':
			o.time_min = (uint32_t)atol(optarg);
			break;
		case 'c':
			o.comment = optarg;
			break;
		case 'n':
			o.ntasks = (uint32_t)atol(optarg);
			break;
		case 'P':
			o.partition = optarg;
			break;
		case 'j':
			o.jobs = atoi(optarg);
			break;
		case 'T':
			o.threads = atoi(optarg);
			break;
		case 'i':
			o.interval_ms = atoi(optarg);
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 1);
		}
	}
	if (optind + 1 != argc || o.threads < 1 || o.threads > 64 || o.jobs < 1)
		return usage(stderr, 1);
	if (!(h = dlopen(argv[optind], RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "plugin-harness: %s\n", dlerror());
		return 2;
	}
	*(void **)&p_init = dlsym(h, "init");
	*(void **)&p_fini = dlsym(h, "fini");
	*(void **)&p_submit = dlsym(h, "job_submit");
	if (!p_init || !p_fini || !p_submit || !dlsym(h, "job_modify") ||
	    !dlsym(h, "plugin_version")) {
		fprintf(stderr,
			"plugin-harness: a job_submit symbol is missing\n");
		return 2;
	}
	if (*(uint32_t *)dlsym(h, "plugin_version") != SLURM_VERSION_NUMBER) {
		fprintf(stderr, "plugin-harness: plugin_version mismatch\n");
		return 2;
	}
	if (p_init() != SLURM_SUCCESS) {
		fprintf(stderr, "plugin-harness: init() failed\n");
		return 3;
	}
	atomic_store(&pwd_phase, 1);
	for (int i = 0; i < o.threads; i++) {
		per[i] = o.jobs / o.threads + (i < o.jobs % o.threads);
		pthread_create(&tid[i], NULL, worker, &per[i]);
	}
	for (int i = 0; i < o.threads; i++)
		pthread_join(tid[i], NULL);
	atomic_store(&pwd_phase, 0);
	p_fini();
	fprintf(stderr,
		"plugin-harness: user-database lookups: init %ld, submit %ld\n",
		atomic_load(&pwd_calls[0]), atomic_load(&pwd_calls[1]));
	dlclose(h);
	free(o.script);
	free(o.comment_buf);
	if (failures) {
		fprintf(stderr, "plugin-harness: job_submit failed %d times\n",
			failures);
		return 3;
	}
	return 0;
}
