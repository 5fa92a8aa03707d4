/* tests/install/c/ring_sum.c — the README's first C program, built against an installed
 * ncore (pkg-config or CMake) and started by the installed ncore-run: every
 * rank contributes rank + 1, the allreduce must give n(n+1)/2 everywhere.
 * Rank 0 also prints ncore_library_info. Exit 0 when the sum is right. */
#include <stdio.h>

#include <ncore.h>

static int fail(const char *what, ncore_status_t status) {
  fprintf(stderr, "ring_sum: %s: %s (%s)\n", what, ncore_status_string(status),
          ncore_last_error_message());
  return 1;
}

int main(void) {
  ncore_comm_t comm;
  ncore_status_t status = ncore_comm_init_from_env(&comm, NULL);
  if (status != NCORE_OK) return fail("ncore_comm_init_from_env", status);
  int rank = 0, nranks = 0;
  ncore_comm_rank(comm, &rank);
  ncore_comm_size(comm, &nranks);
  if (rank == 0) {
    ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
    status = ncore_library_info(&info);
    if (status != NCORE_OK) return fail("ncore_library_info", status);
    printf("ncore %s (ABI %u), backend %d: %s\n", info.version,
           (unsigned)info.abi_version, (int)info.backend, info.backend_reason);
  }
  float *buf = NULL;
  status = ncore_mem_alloc((void **)&buf, sizeof *buf, NCORE_BACKEND_AUTO);
  if (status != NCORE_OK) return fail("ncore_mem_alloc", status);
  float mine = (float)(rank + 1), sum = 0;
  ncore_memcpy(buf, &mine, sizeof mine, NCORE_MEMCPY_HOST_TO_DEVICE, NULL,
              NCORE_BACKEND_AUTO);
  status = ncore_allreduce(comm, buf, buf, 1, NCORE_FLOAT32, NCORE_SUM, NULL);
  if (status == NCORE_OK) status = ncore_comm_synchronize(comm, NULL);
  if (status != NCORE_OK) return fail("ncore_allreduce", status);
  ncore_memcpy(&sum, buf, sizeof sum, NCORE_MEMCPY_DEVICE_TO_HOST, NULL,
              NCORE_BACKEND_AUTO);
  ncore_stream_synchronize(NULL, NCORE_BACKEND_AUTO);
  ncore_mem_free(buf, NCORE_BACKEND_AUTO);
  ncore_comm_destroy(comm);
  float want = (float)nranks * (float)(nranks + 1) / 2;
  if (sum != want) {
    fprintf(stderr, "ring_sum: rank %d got %g, expected %g\n", rank, sum, want);
    return 1;
  }
  printf("rank %d of %d: sum %g\n", rank, nranks, sum);
  return 0;
}
