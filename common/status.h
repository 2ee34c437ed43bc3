/*
 * status.h: the status codes every library function of the project returns
 * (regress/, schema/, server/), and nothing else.
 *
 * The lowest layer: it includes nothing of the project, and any folder may
 * include it. Not for types of one part (those stay in that part's headers).
 *
 * Functions return MPP_OK (0) or a positive mpp_status and, when given an
 * error buffer, write a one-line message naming the file, line or field.
 * Commands map MPP_EINVAL to exit status 2 (bad input).
 */
#ifndef MPP_STATUS_H
#define MPP_STATUS_H

enum mpp_status {
	MPP_OK = 0,
	MPP_EINVAL = 2,    /* bad input: a file, field or value is wrong */
	MPP_ENOTFOUND = 3, /* no such app / model / feature             */
	MPP_EIO = 4,       /* the file system or the database failed     */
	MPP_ENOMEM = 5,
};

#endif
