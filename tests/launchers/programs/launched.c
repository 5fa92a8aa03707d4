/* tests/launchers — the C program every launcher starts: joins the job
 * with ncore_comm_init_from_env alone (no code of its own for ranks or the
 * unique id), allreduces rank + 1 and prints one line the suite checks:
 *   launched: rank R of N sum S */
#include <stdio.h>

#include <ncore.h>

int main(void) {
  /* The timeout: NCORE_TIMEOUT_MS (the suite sets it), else the default. */
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  ncore_comm_t comm;
  int rank = -1, size = -1;
  if (ncore_comm_init_from_env(&comm, &config) != NCORE_OK ||
      ncore_comm_rank(comm, &rank) != NCORE_OK ||
      ncore_comm_size(comm, &size) != NCORE_OK) {
    fprintf(stderr, "launched: %s\n", ncore_last_error_message());
    return 1;
  }
  ncore_backend_t backend;
  int32_t *value;
  if (ncore_comm_backend(comm, &backend) != NCORE_OK ||
      ncore_mem_alloc((void **)&value, sizeof *value, backend) != NCORE_OK) {
    fprintf(stderr, "launched: %s\n", ncore_last_error_message());
    return 1;
  }
  *value = rank + 1;
  if (ncore_allreduce(comm, value, value, 1, NCORE_INT32, NCORE_SUM, NULL) != NCORE_OK) {
    fprintf(stderr, "launched: allreduce: %s\n", ncore_last_error_message());
    return 1;
  }
  printf("launched: rank %d of %d sum %d\n", rank, size, (int)*value);
  ncore_mem_free(value, backend);
  ncore_comm_destroy(comm);
  return 0;
}
