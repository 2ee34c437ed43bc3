/*
 * profile_json.h: a machine profile (loggps.h) as the JSON document that
 * mpipredict-calibrate stores and prints with --show, and that other tools
 * (mpipredict-train, mpipredict-report, SimGrid platform generation) read:
 *   {"machine": str, "created_at": ISO-8601, "nodes_seen": n,
 *    "packages_per_node": p, "cores_per_node": m,
 *    "levels": {"cmp": LEVEL|null, "socket": LEVEL|null, "net": LEVEL|null},
 *    "missing": {"socket": "why", ...},
 *    "memory": MEM}   (optional: absent or null when not measured)
 *   LEVEL = {"o": s, "Os": s/B, "Or": s/B, "g": s, "L": s, "G": s/B,
 *            "h": [s or null, for 1..m other cores], "C": [s/B or null, ...],
 *            "residual": {"o": .., "Os": .., "Or": .., "g": .., "L": ..,
 *                         "G": .., "h": .., "C": ..}, "samples": n}
 *   MEM = {"node_kib": [KiB, increasing],
 *          "curves": [{"ranks": j, "ns_per_byte": [ns, one per node_kib]},
 *                     ... by increasing j]}   (memory.h)
 *
 * Not for: the parameters' meaning (loggps.h) or where the document is kept
 * (schema/store.h).
 */
#ifndef MPP_PROFILE_JSON_H
#define MPP_PROFILE_JSON_H

#include <stddef.h>

#include "regress/loggps.h"

/* Parse text (name for messages) into *p (cleared first; the caller clears
 * it with mpp_loggps_profile_clear). Returns 0, or -1 with err naming the
 * field that is missing or of the wrong type; *p is then cleared. */
int mpp_profile_from_json(const char *name, const char *text,
			  mpp_loggps_profile *p, char *err, size_t errlen);

/* The document for p, indented; malloc'ed, NULL when out of memory. */
char *mpp_profile_to_json(const mpp_loggps_profile *p);

/* The MEM object alone (a model keeps its curve so: schema/store.c), one
 * line; malloc'ed, NULL when out of memory. */
struct mpp_mem_curve;
char *mpp_mem_curve_to_json(const struct mpp_mem_curve *c);

/* Parse a MEM object (name for messages) into a new curve at *out (free
 * it). 0, or -1 with err naming the field; *out is then NULL. */
int mpp_mem_curve_from_json(const char *name, const char *text,
			    struct mpp_mem_curve **out, char *err,
			    size_t errlen);

#endif
