/*
 * request.c: builds the body of POST /v1/predict from a job_desc_msg_t, and
 * spots the "#MPIPREDICT off" line of a script.
 *
 * The body carries what the job carries (docs/design.md, POST /v1/predict): the
 * script as written, argv, submit line, name, work dir, partition, uid, and
 * the task, node and time counts that are set. No app and no args: the
 * daemon finds both. Bytes that are not UTF-8 become '?' so that the script
 * still goes and argv keeps its length.
 *
 * Not for: parsing scripts (one line match is all the plugin does).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <slurm/slurm.h>

#include "contrib/slurm/config.h"
#include "contrib/slurm/request.h"

/* True when a line of the script is "#MPIPREDICT" followed by words one of
 * which is "off" (the user opted this job out). A line match, the same
 * directive syntax the daemon reads; the script is not parsed here. */
bool mpp_script_opts_out(const char *s)
{
	for (const char *p = s; p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *q = p + strspn(p, " \t");

		if (strncmp(q, "#MPIPREDICT", 11) ||
		    (q[11] != ' ' && q[11] != '\t'))
			continue;
		for (q += 11;;) {
			size_t n;

			q += strspn(q, " \t");
			n = strcspn(q, " \t\r\n");
			if (!n)
				break;
			if (n == 3 && !strncmp(q, "off", 3))
				return true;
			q += n;
		}
	}
	return false;
}

/* Length of the valid UTF-8 sequence at s, 0 if the byte there does not
 * start one (s is NUL-terminated, so no read goes past its end). */
static int utf8_len(const unsigned char *s)
{
	unsigned lo = 0x80, hi = 0xbf;
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, lo = s[0] == 0xe0 ? 0xa0 : lo,
		hi = s[0] == 0xed ? 0x9f : hi;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, lo = s[0] == 0xf0 ? 0x90 : lo,
		hi = s[0] == 0xf4 ? 0x8f : hi;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int k = 2; k < n; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string of s. JSON text must be UTF-8 and jansson refuses anything
 * else: bytes that are not (a Latin-1 comment in a script) become '?', so
 * that the script is still sent and no argv element goes missing. */
static json_t *text(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j || !s || !(copy = strdup(s)))
		return j;
	for (size_t i = 0; copy[i];) {
		int n = utf8_len((const unsigned char *)copy + i);

		if (n)
			i += n;
		else
			copy[i++] = '?';
	}
	j = json_string(copy);
	free(copy);
	return j;
}

static void put_str(json_t *o, const char *key, const char *val)
{
	if (val)
		json_object_set_new(o, key, text(val));
}

static void put_num(json_t *o, const char *key, uint64_t val, uint64_t unset)
{
	if (val != unset)
		json_object_set_new(o, key, json_integer((json_int_t)val));
}

/* The body for the daemon (docs/design.md, POST /v1/predict): no app and no
 * args, the daemon finds both in the script, or in argv when there is none.
 * NULL with why filled when it cannot be built or is longer than max_body
 * (the daemon would refuse it with 413; JSON escapes can make a script up
 * to six times longer, so the encoded body is what is measured). */
char *mpp_build_request(const job_desc_msg_t *job, char *why, size_t whylen)
{
	json_t *o = json_object(), *argv = json_array();
	char *body = NULL;
	size_t len;

	if (job->script &&
	    (len = strlen(job->script)) > (size_t)mpp_cfg.max_body) {
		snprintf(why, whylen,
			 "script of %zu bytes is over max_body (%ld)", len,
			 mpp_cfg.max_body);
		goto out;
	}
	if (!o || !argv) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; job->argv && i < job->argc; i++)
		json_array_append_new(argv,
				      text(job->argv[i] ? job->argv[i] : ""));
	json_object_set(o, "argv", argv);
	put_str(o, "script", job->script);
	put_str(o, "submit_line", job->submit_line);
	put_str(o, "job_name", job->name);
	put_str(o, "work_dir", job->work_dir);
	put_str(o, "partition", job->partition);
	put_num(o, "uid", job->user_id, NO_VAL);
	put_num(o, "ntasks", job->num_tasks, NO_VAL);
	put_num(o, "nodes", job->min_nodes, NO_VAL);
	put_num(o, "max_nodes", job->max_nodes, NO_VAL);
	put_num(o, "ntasks_per_node", job->ntasks_per_node, NO_VAL16);
	put_num(o, "cpus_per_task", job->cpus_per_task, NO_VAL16);
	if (job->time_limit != NO_VAL && job->time_limit != INFINITE)
		put_num(o, "time_limit_s", (uint64_t)job->time_limit * 60,
			NO_VAL64);
	if (!(body = json_dumps(o, JSON_COMPACT)))
		snprintf(why, whylen, "out of memory");
	else if ((len = strlen(body)) > (size_t)mpp_cfg.max_body) {
		snprintf(why, whylen,
			 "request of %zu bytes (the script JSON-escaped) is "
			 "over max_body (%ld)",
			 len, mpp_cfg.max_body);
		free(body);
		body = NULL;
	}
out:
	json_decref(argv);
	json_decref(o);
	return body;
}
