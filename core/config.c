/* core — communicator configuration: defaults, versioned reading, timeout
 * resolution, and the public *_init functions of every versioned input
 * struct (comm config, wait-signal descriptor, device-comm requirements). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "error.h"
#include "versioned.h"

/* 300 s: long enough for slow job starts, short enough to see a hang. */
#define CORE_DEFAULT_TIMEOUT_MS 300000

int64_t core_timeout_resolve(int32_t timeout_ms) {
  if (timeout_ms < 0) return -1;
  if (timeout_ms > 0) return timeout_ms;
  const char *env = getenv("NCORE_TIMEOUT_MS");
  if (env != NULL && env[0] != '\0') {
    char *end = NULL;
    errno = 0;
    long long value = strtoll(env, &end, 10);
    /* A malformed variable falls back to the default rather than failing
     * every init: the environment is not an argument we can name. */
    if (errno == 0 && end != NULL && *end == '\0') {
      if (value < 0) return -1;
      if (value > 0) return (int64_t)value;
    }
  }
  return CORE_DEFAULT_TIMEOUT_MS;
}

ncore_status_t core_config_read(const ncore_comm_config_t *user,
                                core_config_t *out) {
  ncore_comm_config_t defaults = NCORE_COMM_CONFIG_INIT;
  memset(out, 0, sizeof *out);
  out->user = defaults;
  if (user != NULL) {
    ncore_status_t status = core_versioned_read(
        &out->user, sizeof out->user, user,
        CORE_MIN_SIZE_COMM_CONFIG, "config");
    if (status != NCORE_OK) return status;
  }
  const ncore_comm_config_t *c = &out->user;
  if (c->backend != NCORE_BACKEND_AUTO && c->backend != NCORE_BACKEND_HOST &&
      c->backend != NCORE_BACKEND_NCCL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config: backend: %d is not a backend (AUTO 0, HOST 1, "
                      "NCCL 2)", (int)c->backend);
  if (c->device < -1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config: device: %d is invalid (expected -1 or a CUDA "
                      "device ordinal)", (int)c->device);
  out->backend = (ncore_backend_t)c->backend;
  out->timeout_ms = core_timeout_resolve(c->timeout_ms);
  return NCORE_OK;
}

ncore_status_t core_config_select_backend(core_config_t *config,
                                          const core_backend_ops_t **ops) {
  ncore_status_t status = core_backend_select(config->backend, ops);
  if (status != NCORE_OK) return status;
  config->backend = (*ops)->kind;
  config->user.backend = (int32_t)(*ops)->kind;
  if (!(*ops)->caps.devices && config->user.device != -1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config: device: must be -1 on the %s backend (got %d)",
                      (*ops)->name, (int)config->user.device);
  return NCORE_OK;
}

/* The defaults live in static storage, so their padding bytes are zero and
 * every init writes the same bytes. */
NCORE_API ncore_status_t ncore_comm_config_init(ncore_comm_config_t *config,
                                                size_t struct_size) {
  CORE_ENTER("ncore_comm_config_init");
  static const ncore_comm_config_t defaults = NCORE_COMM_CONFIG_INIT;
  return core_versioned_init(config, struct_size, &defaults, sizeof defaults,
                             CORE_MIN_SIZE_COMM_CONFIG, "config");
}

NCORE_API ncore_status_t ncore_wait_signal_desc_init(
    ncore_wait_signal_desc_t *desc, size_t struct_size) {
  CORE_ENTER("ncore_wait_signal_desc_init");
  static const ncore_wait_signal_desc_t defaults = NCORE_WAIT_SIGNAL_DESC_INIT;
  return core_versioned_init(desc, struct_size, &defaults, sizeof defaults,
                             CORE_MIN_SIZE_WAIT_SIGNAL_DESC, "desc");
}

NCORE_API ncore_status_t ncore_coll_config_init(ncore_coll_config_t *config,
                                                size_t struct_size) {
  CORE_ENTER("ncore_coll_config_init");
  static const ncore_coll_config_t defaults = NCORE_COLL_CONFIG_INIT;
  return core_versioned_init(config, struct_size, &defaults, sizeof defaults,
                             CORE_MIN_SIZE_COLL_CONFIG, "config");
}

NCORE_API ncore_status_t ncore_dev_comm_requirements_init(
    ncore_dev_comm_requirements_t *requirements, size_t struct_size) {
  CORE_ENTER("ncore_dev_comm_requirements_init");
  static const ncore_dev_comm_requirements_t defaults =
      NCORE_DEV_COMM_REQUIREMENTS_INIT;
  return core_versioned_init(requirements, struct_size, &defaults,
                             sizeof defaults,
                             CORE_MIN_SIZE_DEV_COMM_REQUIREMENTS,
                             "requirements");
}
