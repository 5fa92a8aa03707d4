/* Conformance runner (C): the batch protocol (conformance/README.md,
 * "Batches"). One launch runs several cases in order: the plan directory's
 * `batch` file names a directory per case (holding plan.<rank>), and for
 * each case rank 0 makes a fresh unique id and publishes it in <case>/uid,
 * which the other ranks wait for. */
#ifndef NCORE_CONFORMANCE_BATCH_H
#define NCORE_CONFORMANCE_BATCH_H

#include <ncore.h>

/* How long a rank waits for rank 0 to publish a case's id: rank 0 may still
 * be finishing the previous case; a longer wait means it is stuck (and
 * run.py's watchdog stops the launch first). */
#define BATCH_UID_WAIT_MS 120000

/* The case directories of <dir>/batch, in order, as "<dir>/<case>" strings
 * in *out (malloc'ed); returns their number, or exits 2 (saying why) if the
 * file cannot be read. */
int batch_load(const char *dir, char ***out);

/* The case's unique id: rank 0 makes one (ncore_get_unique_id, backend
 * AUTO) and publishes it as hex in <case_dir>/uid (a temporary file, then
 * rename, so no rank reads half an id); another rank waits for that file,
 * at most BATCH_UID_WAIT_MS. Returns 0, or -1 after saying why on stderr. */
int batch_unique_id(const char *case_dir, int rank, ncore_unique_id_t *id);

#endif
