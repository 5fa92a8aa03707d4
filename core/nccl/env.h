/* core/nccl — the backend's environment knobs (core/nccl/README.md,
 * "Environment knobs"). */
#ifndef NCORE_CORE_NCCL_ENV_H
#define NCORE_CORE_NCCL_ENV_H

/* The integer in environment variable name (strtol, base 0), or fallback
 * when it is unset, empty or not a whole number. */
long nccl_env_long(const char *name, long fallback);

#endif
