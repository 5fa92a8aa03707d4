/* core/nccl — reading the backend's environment knobs. */
#include "env.h"

#include <stdlib.h>

long nccl_env_long(const char *name, long fallback) {
  const char *v = getenv(name);
  if (v == NULL || *v == '\0') return fallback;
  char *end = NULL;
  long x = strtol(v, &end, 0);
  return (end != NULL && *end == '\0') ? x : fallback;
}
