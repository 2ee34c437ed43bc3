/*
 * jobcomp_send.h: finished jobs' records to the daemon (POST /v1/jobs),
 * or to a spool file while it cannot be reached, for mpipredict-jobcomp
 * run as Slurm's jobcomp/script: Slurm must never wait on the daemon, so
 * everything here is bounded by the client's timeout, and a record the
 * daemon did not take is kept, never lost.
 *
 * The spool holds records in the format mpipredict-jobcomp --from reads
 * (one a line). Appends are one write(2) under an fcntl lock on the
 * file's first terabyte; the run that sends the spool also holds a lock
 * on the byte after it, taken without waiting (a second run finding it
 * taken leaves the spool to the first), and holds the append lock only to
 * read the spool and to cut what was sent, never while on the network.
 * Not for the direct mode (--db), which writes the store itself.
 */
#ifndef MPP_HISTORY_JOBCOMP_SEND_H
#define MPP_HISTORY_JOBCOMP_SEND_H

#include <stddef.h>

#include "common/client.h"

/* Where records wait for the daemon unless --spool names another file. */
#define MPP_JOBCOMP_SPOOL "/var/spool/mpipredict/jobcomp.spool"

enum mpp_send_result {
	MPP_SEND_STORED,  /* the daemon stored the records */
	MPP_SEND_SPOOLED, /* the daemon is away (or 5xx): kept in the spool */
	MPP_SEND_REFUSED, /* a 4xx: the daemon will never take them */
	MPP_SEND_FAILED,  /* neither sent nor spooled (the spool failed) */
};

/* Sends the spool's records, then text[0..len) (whole lines, each
 * checked by mpp_jobcomp_parse), to c's POST /v1/jobs within about
 * c->timeout_ms in all; appends text to the spool when the daemon cannot
 * be reached, answers 5xx, or no time is left. Each problem is one line
 * through log (the daemon's reason on a 4xx). */
enum mpp_send_result mpp_jobcomp_send(const mpp_client_conf *c,
				      const char *spool, const char *text,
				      size_t len, void (*log)(const char *msg));

#endif
