/* core — joining the job a program was started in (ncore_comm_init_from_env):
 * which launcher started it, this rank's place in the job, and how rank 0's
 * unique id reaches the others without user code. See docs/architecture.md
 * ("Joining a launched job") for why each launcher's way was chosen. */
#ifndef NCORE_CORE_LAUNCH_H
#define NCORE_CORE_LAUNCH_H

#include <stdint.h>

#include "backend.h"
#include "launch_secret.h"
#include "launch_vars.h" /* core_launch_exchange_t, core_launchers */

/* This process's place in the job, as its launcher describes it. */
typedef struct core_launch {
  const char *launcher;   /* "ncore-run", "Open MPI", "MPICH (PMI)", "Slurm",
                             "torchrun", or "no launcher" */
  const char *variables;  /* the variables rank and size came from */
  int rank, nranks, local_rank;
  core_launch_exchange_t exchange;
  ncore_unique_id_t id;   /* CORE_LAUNCH_ID_IN_ENV: ncore-run's id */
} core_launch_t;

/* Reads the environment: the first row of core_launchers whose variables
 * are set; with none, a job of one rank. Another launcher's variables set
 * beside them must agree on rank and size, unless the chosen launcher runs
 * inside that one (its `inside` bits). Logs what it read at INFO.
 * Returns NCORE_OK, or NCORE_ERR_INVALID_ARGUMENT (recorded) naming the
 * variable that is missing or malformed, or both launchers and their values
 * where two disagree. */
ncore_status_t core_launch_detect(core_launch_t *out);

/* The launcher core_launch_detect would find ("Open MPI", ...), or NULL when
 * none started this process. Reads only the environment; logs and records
 * nothing (the library's load asks it: stdio_lines.c). */
const char *core_launch_started_by(void);

/* Gives *id the job's unique id for ops' backend: rank 0 makes it and
 * publishes it through launch->exchange, the others receive it (a job of
 * one rank makes its own; ncore-run's is already in launch->id for the
 * first call, later ones go through MASTER_ADDR:MASTER_PORT). Every
 * rank calls it once per ncore_comm_init_from_env; the n-th calls of all
 * ranks pair up. timeout_ms < 0 waits forever.
 * Returns NCORE_OK; NCORE_ERR_UNAVAILABLE (the launcher offers no way that
 * ncore can use: the message names what was looked for);
 * NCORE_ERR_TIMEOUT (rank 0's id did not come in time, naming where it was
 * awaited); NCORE_ERR_REMOTE (the launcher's service failed or answered
 * nonsense); NCORE_ERR_INVALID_ARGUMENT (ranks disagree on the call count);
 * NCORE_ERR_SYSTEM; or what ops->get_unique_id returns. */
ncore_status_t core_launch_share_id(const core_launch_t *launch,
                                    const core_backend_ops_t *ops,
                                    int64_t timeout_ms, ncore_unique_id_t *id);

/* The exchanges (one file each). key names this call ("ncore.uid.<n>");
 * rank 0 passes its id in *id, the others receive it there. */
ncore_status_t core_launch_pmix_share(const core_launch_t *launch,
                                      const char *key, int64_t timeout_ms,
                                      ncore_unique_id_t *id);
ncore_status_t core_launch_pmi1_share(const core_launch_t *launch,
                                      const char *key, uint64_t call,
                                      int64_t timeout_ms, ncore_unique_id_t *id);
ncore_status_t core_launch_tcp_share(const core_launch_t *launch,
                                     uint64_t call, int64_t timeout_ms,
                                     ncore_unique_id_t *id);

/* Whether an MPI library in this process holds the launcher's session
 * (launch_mpi.c): one loaded in the program or any object it loaded;
 * open_mpi_counts: 1 for the PMIx client (any MPI), 0 for Hydra's PMI-1
 * session (any MPI but Open MPI). *library (may be NULL) receives the file
 * it was found in. */
typedef enum core_launch_mpi {
  CORE_LAUNCH_MPI_ABSENT,     /* none: ncore alone uses the session */
  CORE_LAUNCH_MPI_LOADED,     /* loaded, MPI_Init not called (yet) */
  CORE_LAUNCH_MPI_ACTIVE,     /* between MPI_Init and MPI_Finalize */
  CORE_LAUNCH_MPI_FINALIZED   /* MPI_Finalize ended the session */
} core_launch_mpi_t;
core_launch_mpi_t core_launch_mpi_state(int open_mpi_counts,
                                        const char **library);

/* Presence on this machine in an id exchange (launch_presence.c), named by
 * job (any text naming the launcher's job), call and rank.
 * core_launch_presence_enter: holds the name while the rank waits; returns
 * what core_launch_presence_leave releases (-1 when it could not: the rank
 * then looks absent). core_launch_presence_here: 1 when some process holds
 * rank's name, or when that cannot be told; 0 when nobody does. */
int core_launch_presence_enter(const char *job, uint64_t call, int rank);
void core_launch_presence_leave(int fd);
int core_launch_presence_here(const char *job, uint64_t call, int rank);

/* ncore's store (launch_tcp.c, launch_tcp_serve.c), also what PMI-1 hands
 * over to after its first exchange.
 *
 * core_launch_tcp_bind: rank 0's socket for the store, bound (not yet
 * listening) at host's address — NCORE_STORE_BIND_ADDR instead when set,
 * "*" or host NULL: every interface — and port ("0": a free one, kept by
 * the socket for the process's later exchanges); *bound the port. Returns
 * NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (the address does not resolve, or
 * is no address of this host: the message names the variable);
 * NCORE_ERR_SYSTEM (the port is taken, or another socket error).
 *
 * core_launch_tcp_serve: listens on fd (bound by core_launch_tcp_bind)
 * and hands id (call number `call`) to every other rank of the job that
 * proves secret, many connections at once, until all have it or the
 * deadline (CLOCK_MONOTONIC ms, < 0: none) passes; then stops listening
 * (fd stays bound, the caller closes it). where ("host:port") names it in
 * messages. Returns NCORE_OK; NCORE_ERR_TIMEOUT naming the ranks that
 * never came (and the first stranger refused, if any);
 * NCORE_ERR_INVALID_ARGUMENT (a rank of the job disagrees on the rank
 * count or call number); NCORE_ERR_INVALID_USAGE (two processes proving
 * the secret claimed one rank, naming both); NCORE_ERR_SYSTEM.
 *
 * core_launch_tcp_fetch: the others ask host:port for it, proving secret,
 * again and again while nothing listens or a stranger answers, until the
 * deadline. Returns NCORE_OK; NCORE_ERR_TIMEOUT naming why the last try
 * failed (nothing listened, another job's store); NCORE_ERR_INVALID_ARGUMENT
 * (host does not resolve, or the job's rank 0 disagrees on the rank count
 * or call number); NCORE_ERR_INVALID_USAGE (the job's store refused this
 * rank, saying why); NCORE_ERR_SYSTEM. */
ncore_status_t core_launch_tcp_bind(const char *host, const char *port, int *fd,
                                    int *bound);
ncore_status_t core_launch_tcp_serve(const core_launch_t *launch,
                                     const core_launch_secret_t *secret, int fd,
                                     const char *where, uint64_t call,
                                     const ncore_unique_id_t *id,
                                     int64_t deadline);
ncore_status_t core_launch_tcp_fetch(const core_launch_t *launch,
                                     const core_launch_secret_t *secret,
                                     const char *host, const char *port,
                                     uint64_t call, int64_t deadline,
                                     ncore_unique_id_t *id);

/* A torch TCPStore's client (launch_torch_store.c): rank 0 sets
 * "ncore.uid.<label>.<call>" to the id sealed with secret, the others wait
 * for it and get it, at host:port. */
ncore_status_t core_launch_torch_store_share(const core_launch_t *launch,
                                             const core_launch_secret_t *secret,
                                             const char *host, const char *port,
                                             uint64_t call, int64_t timeout_ms,
                                             ncore_unique_id_t *id);
/* 1 when a torch TCPStore (either dialect) answers at host:port before
 * the deadline; 0 otherwise. */
int core_launch_torch_store_answers(const char *host, const char *port,
                                    int64_t deadline);

#endif
