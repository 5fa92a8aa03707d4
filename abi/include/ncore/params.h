/* ncore — NCCL's tunable parameters, read-only (nccl4py 0.4.1's
 * nccl.core.params and dump_params; NCCL 2.30's parameter API,
 * ncclParamGetParameter / ncclParamGetAllParameterKeys of nccl.h).
 *
 * Where the values come from: when the backend NCORE_BACKEND_AUTO picks
 * here is NCCL and the loaded libnccl is 2.30 or newer, from NCCL itself
 * (its parameters, set or not, with their current values; NCCL lists the
 * documented ones, all of them with NCCL_PARAM_DUMP_ALL=1). Otherwise
 * (the host backend, NCCL older than 2.30) from the environment: every
 * NCCL_* variable and ncore's own NCORE_* variables that are set, with
 * their text — except a launcher's secrets (NCORE_JOB_SECRET,
 * NCORE_JOB_SECRET_FILE, NCORE_UNIQUE_ID), which are no parameters: a
 * dump ends up in logs. Each call reads the source anew (no snapshot). Reading the
 * environment while another thread changes it (setenv) is undefined, as
 * for getenv. */
#ifndef NCORE_PARAMS_H
#define NCORE_PARAMS_H

#include <stddef.h>
#include "errors.h"
#include "export.h"

NCORE_BEGIN_DECLS

/* Writes the value of parameter `key` (e.g. "NCCL_DEBUG") as text.
 * key: NUL-terminated name; not NULL, not empty.
 * value, capacity: caller-owned buffer of capacity bytes that receives the
 *   text and a NUL. value NULL with capacity 0 asks only for the length.
 * length: receives the text's length without the NUL; not NULL.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT when key or length is NULL
 * or key empty, when no parameter has that name (the message says "no
 * parameter"), or when capacity cannot hold the text and its NUL (*length
 * is then set, nothing is written to value); NCORE_ERR_INTERNAL when NCCL
 * fails otherwise. */
NCORE_API ncore_status_t ncore_param_get(const char *key, char *value,
                                         size_t capacity, size_t *length);

/* Writes the names of all parameters, in the source's order (sorted for
 * the environment), each followed by '\n', then a NUL.
 * keys, capacity: caller-owned buffer; NULL with capacity 0 asks only for
 *   the length. length: receives the text's length without the NUL; not
 *   NULL. No parameter at all gives the empty text.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT when length is NULL or
 * capacity cannot hold the text and its NUL (*length is then set);
 * NCORE_ERR_INTERNAL when NCCL fails. */
NCORE_API ncore_status_t ncore_param_keys(char *keys, size_t capacity,
                                          size_t *length);

/* Prints every parameter to standard output as "NAME=value" lines, in
 * ncore_param_keys' order, and flushes it. Returns NCORE_OK, or
 * NCORE_ERR_INTERNAL / NCORE_ERR_SYSTEM when reading or writing fails. */
NCORE_API ncore_status_t ncore_param_dump(void);

NCORE_END_DECLS

#endif /* NCORE_PARAMS_H */
