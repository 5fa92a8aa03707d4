/* tests/launchers — the C program every launcher starts: joins the job
 * with ncore_comm_init_from_env alone (no code of its own for ranks or the
 * unique id), twice in a row (the n-th calls of all ranks pair up, through
 * every launcher's exchange), allreduces rank + 1 in each communicator and
 * prints one line the suite checks:
 *   launched: rank R of N sum S
 * Built with an MPI's mpicc and -DLAUNCHED_WITH_MPI, it is also an MPI
 * program: `mpi-first` calls MPI_Init before the first join, `mpi-last`
 * after the second; MPI's own allreduce must give the same sum, and
 * MPI_Finalize ends it (MPI's PMI session must survive ncore). */
#include <stdio.h>
#include <string.h>

#include <ncore.h>
#ifdef LAUNCHED_WITH_MPI
#include <mpi.h>
#endif

/* One communicator: joins, allreduces rank + 1 into *sum. 0 on success. */
static int join_and_sum(int *rank, int *size, int *sum) {
  /* The timeout: NCORE_TIMEOUT_MS (the suite sets it), else the default. */
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  ncore_comm_t comm;
  ncore_backend_t backend;
  int32_t *value = NULL;
  if (ncore_comm_init_from_env(&comm, &config) != NCORE_OK ||
      ncore_comm_rank(comm, rank) != NCORE_OK ||
      ncore_comm_size(comm, size) != NCORE_OK ||
      ncore_comm_backend(comm, &backend) != NCORE_OK ||
      ncore_mem_alloc((void **)&value, sizeof *value, backend) != NCORE_OK) {
    fprintf(stderr, "launched: %s\n", ncore_last_error_message());
    return 1;
  }
  *value = *rank + 1;
  if (ncore_allreduce(comm, value, value, 1, NCORE_INT32, NCORE_SUM, NULL) != NCORE_OK) {
    fprintf(stderr, "launched: allreduce: %s\n", ncore_last_error_message());
    return 1;
  }
  *sum = (int)*value;
  ncore_mem_free(value, backend);
  ncore_comm_destroy(comm);
  return 0;
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
#ifdef LAUNCHED_WITH_MPI
  int mpi_first = argc > 1 && strcmp(argv[1], "mpi-first") == 0;
  if (mpi_first) MPI_Init(&argc, &argv);
#endif
  int rank = -1, size = -1, first = 0, second = 0;
  if (join_and_sum(&rank, &size, &first) != 0 || join_and_sum(&rank, &size, &second) != 0)
    return 1;
  if (first != second) {
    fprintf(stderr, "launched: the two communicators disagree (%d, %d)\n", first, second);
    return 1;
  }
#ifdef LAUNCHED_WITH_MPI
  if (!mpi_first) MPI_Init(&argc, &argv);
  int mpi_rank = -1, mpi_size = -1, mpi_sum = rank + 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  MPI_Allreduce(MPI_IN_PLACE, &mpi_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (mpi_rank != rank || mpi_size != size || mpi_sum != second) {
    fprintf(stderr, "launched: MPI says rank %d of %d sum %d, ncore rank %d of %d sum %d\n",
            mpi_rank, mpi_size, mpi_sum, rank, size, second);
    return 1;
  }
  MPI_Finalize();
#endif
  printf("launched: rank %d of %d sum %d\n", rank, size, second);
  return 0;
}
