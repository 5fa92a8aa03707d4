/* Unit-test helper: a one-rank communicator on the resolved backend. */
#ifndef NCORE_TESTS_UNIT_COMM_H
#define NCORE_TESTS_UNIT_COMM_H

#include "harness.h"

/* Creates a one-rank communicator with config (NULL for defaults) from a
 * fresh unique id; returns the status of ncore_comm_init_rank. */
static inline ncore_status_t unit_comm1(ncore_comm_t *out,
                                        const ncore_comm_config_t *config) {
  ncore_unique_id_t id;
  ncore_status_t st = ncore_get_unique_id(&id, NCORE_BACKEND_AUTO);
  if (st != NCORE_OK) return st;
  return ncore_comm_init_rank(out, 1, &id, 0, config);
}

/* Declares `comm`, a one-rank communicator, failing the test if it cannot
 * be made. */
#define UNIT_COMM(comm)                                 \
  ncore_comm_t comm = NCORE_NULL_HANDLE;                \
  CHECK_OK(unit_comm1(&comm, NULL))

#endif
