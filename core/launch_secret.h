/* core — a launched job's identity: the secret its ranks prove to the
 * store that hands out rank 0's unique id (launch_tcp*.c, and sealed in
 * torchrun's store, launch_torch_store.c), so that two jobs never take
 * each other's ids and a stranger gets nothing.
 *
 * Where it comes from, first found first:
 *   NCORE_JOB_SECRET        the text itself (ncore-run sets 64 hex
 *                           characters of 32 random bytes per launch; any
 *                           launcher or user may set one, 16 characters at
 *                           least)
 *   NCORE_JOB_SECRET_FILE   a file holding it (trailing white space
 *                           dropped; at most 4096 bytes)
 * These authenticate: only a process given the secret can prove it.
 * Otherwise it is derived from what the launcher gives every rank of one
 * job and no rank of another — torchrun's TORCHELASTIC_RUN_ID (not its
 * default "none"), Slurm's SLURM_JOB_ID with SLURM_STEP_ID, a PMIx
 * namespace (PMIX_NAMESPACE: Open MPI, PRRTE, Slurm's pmix), Open MPI's
 * OMPI_MCA_ess_base_jobid. A derived secret separates jobs; it does not
 * authenticate, since anyone who can read those values (ps, squeue) can
 * compute it. With none of them, every such job has the same identity
 * ("no job identity"). Under MPICH the store's secret is rank 0's random
 * one, published through PMI (core_launch_secret_mix).
 *
 * The secret itself never leaves the process: the key is its SHA-256, and
 * what others see is a label (8 hex characters of a hash of the key) and
 * the launcher's name of the job, which messages use to name two jobs. */
#ifndef NCORE_CORE_LAUNCH_SECRET_H
#define NCORE_CORE_LAUNCH_SECRET_H

#include <stddef.h>

#include <ncore.h>

#include "sha256.h"

#define CORE_LAUNCH_SECRET_MIN_CHARS 16
#define CORE_LAUNCH_SECRET_FILE_MAX_BYTES 4096
#define CORE_LAUNCH_LABEL_CHARS 8

typedef struct core_launch_secret {
  unsigned char key[CORE_SHA256_BYTES];
  char label[CORE_LAUNCH_LABEL_CHARS + 1]; /* public: names the job */
  char name[64];    /* the launcher's name of the job, "" where none */
  char source[40];  /* where it came from: a variable's name, "none" */
  int authenticates; /* 1: given (or generated and handed over by PMI);
                        0: derived from public values, or none */
} core_launch_secret_t;

/* Reads this process's job identity from the environment (above) into
 * *out. Returns NCORE_OK, or NCORE_ERR_INVALID_ARGUMENT (recorded) naming
 * NCORE_JOB_SECRET or NCORE_JOB_SECRET_FILE when one is set but unusable
 * (shorter than 16 characters, a file that cannot be read, empty or too
 * long). */
ncore_status_t core_launch_secret_read(core_launch_secret_t *out);

/* The identity of secret text (len bytes) with its name and source. */
void core_launch_secret_from_text(const void *text, size_t len,
                                  const char *name, const char *source,
                                  int authenticates, core_launch_secret_t *out);

/* Makes *secret depend on text as well (its key becomes the HMAC of text
 * under the old key): a secret every rank received from a trusted service
 * (PMI) on top of what each read itself. The result authenticates. */
void core_launch_secret_mix(core_launch_secret_t *secret, const char *text,
                            const char *name, const char *source);

/* "job 3fa2c1d0 (torchrun run 5f3c...)" into out: the label, and the name
 * where there is one. */
void core_launch_secret_describe(const core_launch_secret_t *secret, char *out,
                                 size_t cap);

/* An HMAC under the job's key with purpose (a NUL-terminated text naming
 * what the MAC is for, absorbed with its NUL so no two purposes collide)
 * already absorbed; the caller adds the message and finishes it. */
void core_launch_secret_mac_begin(const core_launch_secret_t *secret,
                                  const char *purpose, core_hmac_sha256_t *mac);

/* XORs len bytes of data with a key stream made from the job's key and
 * context (HMAC-SHA-256 in counter mode): sealing and unsealing are the
 * same call. A context must never seal two different texts (the store's
 * contexts hold both sides' fresh nonces). */
void core_launch_secret_seal(const core_launch_secret_t *secret,
                             const void *context, size_t context_len,
                             void *data, size_t len);

#endif
