/* Says whether the backend that AUTO / NCORE_BACKEND resolves to can be
 * used here. Prints "available: host|nccl" and exits 0, or
 * "unavailable: <status>: <message>" and exits 1. tests/run.sh uses it to
 * report an NCCL pass that cannot run instead of leaving it out. */
#include <stdio.h>

#include <ncore.h>

int main(void) {
  ncore_backend_t backend;
  ncore_status_t st = ncore_backend_resolve(NCORE_BACKEND_AUTO, &backend);
  if (st != NCORE_OK) {
    printf("unavailable: %s: %s\n", ncore_status_string(st), ncore_last_error_message());
    return 1;
  }
  printf("available: %s\n", backend == NCORE_BACKEND_NCCL ? "nccl" : "host");
  return 0;
}
