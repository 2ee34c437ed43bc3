/*
 * check.h: what the fuzz harnesses share: a failed invariant aborts with a
 * line saying which (libFuzzer then saves the input as a crash). Header
 * only; for fuzz/ alone.
 */
#ifndef MPP_FUZZ_CHECK_H
#define MPP_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The harness entry points libFuzzer (or replay.c) calls. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, what)                                                 \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "fuzz: invariant failed: %s (%s)\n",   \
				what, #cond);                                  \
			abort();                                               \
		}                                                              \
	} while (0)

#endif
