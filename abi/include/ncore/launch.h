/* ncore — joining the job a program was started in (ABI 1.1).
 *
 * One call makes this rank's communicator, whichever launcher started the
 * program: ncore_comm_init_from_env reads rank, size and local rank from
 * the first of these whose rank variable is set:
 *   ncore-run, python -m ncore.run   NCORE_RANK, NCORE_NRANKS, NCORE_LOCAL_RANK
 *                                    (and the id itself, NCORE_UNIQUE_ID)
 *   Open MPI's mpirun                OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK
 *   MPICH / Hydra (PMI)              PMI_RANK, PMI_SIZE, MPI_LOCALRANKID
 *   Slurm's srun                     SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
 *                                    (with SLURM_STEP_ID: a task of a step)
 *   torchrun                         RANK, WORLD_SIZE, LOCAL_RANK
 * and, with none, makes a job of one rank. A launcher that runs inside
 * another wins (torchrun's agent inside srun or mpirun, mpirun inside a
 * Slurm step); any other two launchers' variables must agree on rank and
 * size. Rank 0 makes the unique id and
 * it reaches the other ranks through the launcher: its PMIx server (Open
 * MPI; Slurm with srun --mpi=pmix), PMI-1 on PMI_FD (Hydra), torchrun's
 * agent store (or torch's own store, where init_process_group came first)
 * or, where nothing listens there, rank 0 itself at MASTER_ADDR:MASTER_PORT
 * (bound to that address; NCORE_STORE_BIND_ADDR names another, "*" every
 * interface). Rank 0's store hands the id only to ranks that prove the
 * job's secret: NCORE_JOB_SECRET (ncore-run sets a random one per launch)
 * or the file NCORE_JOB_SECRET_FILE names, else one derived from the
 * launcher's job id (TORCHELASTIC_RUN_ID; SLURM_JOB_ID and SLURM_STEP_ID;
 * PMIX_NAMESPACE; Open MPI's job id), which separates jobs but
 * authenticates nobody; in torch's stores the id is sealed with it.
 * NCORE_DEBUG=INFO logs what was read and how the id travelled.
 * docs/architecture.md ("Joining a launched job") says why, and
 * docs/reliability.md what each launcher's way authenticates. */
#ifndef NCORE_LAUNCH_H
#define NCORE_LAUNCH_H

#include "comm.h"
#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* Creates this rank's communicator in the job its launcher started (see
 * above): ncore_comm_init_rank(out, size, rank 0's id, rank, config).
 * Collective like ncore_comm_init_rank: every rank of the job calls it, and
 * the n-th calls of all ranks make one communicator (under ncore-run the
 * first uses NCORE_UNIQUE_ID, later ones rank 0's new id through
 * MASTER_ADDR:MASTER_PORT, which ncore-run sets: an id makes one
 * communicator).
 * The device rule (NCCL backend): unless config names a device
 * (config->device != -1), the rank runs on GPU
 * local rank % (number of visible devices), so one rank per GPU is
 * what a launched program gets with no device call of its own; the device
 * is current on the calling thread when this returns. The host backend has
 * no devices.
 * out: receives the new communicator; the caller owns it and releases it
 *   with ncore_comm_destroy or ncore_comm_abort.
 * config: NULL for defaults, or a versioned config (borrowed).
 * Returns what ncore_comm_init_rank returns; NCORE_ERR_INVALID_ARGUMENT also
 * when a variable is missing or malformed (a rank or size not a
 * non-negative integer, the rank not below the size, NCORE_UNIQUE_ID not
 * 256 hex characters, a local rank set but not a non-negative integer; the
 * message names the variable), when two launchers' variables disagree on
 * rank or size (the message names both), when the ranks disagree on the
 * size or the number of calls, when NCORE_JOB_SECRET or
 * NCORE_JOB_SECRET_FILE is set but unusable (shorter than 16 characters, a
 * file that cannot be read or holds more than 4096 bytes), or when
 * MASTER_ADDR (or NCORE_STORE_BIND_ADDR) is no address of rank 0's host;
 * NCORE_ERR_INVALID_USAGE also when two processes proving the job's secret
 * claim one rank (the message names both); NCORE_ERR_UNAVAILABLE also when
 * the NCCL backend
 * sees no device, or the launcher offers no way for the id to travel (no
 * PMIx server, no PMI_FD, no MASTER_ADDR / MASTER_PORT: the message names
 * what was looked for); NCORE_ERR_TIMEOUT also when rank 0's id did not
 * arrive within the config's timeout (the message names where it was
 * awaited, why the last try failed — nothing listened, another job's
 * store answered — and the ranks found missing: rank 0, at rank 0 the
 * ranks that never asked and the first stranger refused, or under Hydra
 * the ranks of this machine never seen in the barrier); NCORE_ERR_REMOTE
 * also when the launcher's service failed; NCORE_ERR_SYSTEM also when rank
 * 0 cannot listen at MASTER_PORT (another job's store holds it: the
 * message names both jobs). */
NCORE_API ncore_status_t ncore_comm_init_from_env(
    ncore_comm_t *out, const ncore_comm_config_t *config);

NCORE_END_DECLS

#endif /* NCORE_LAUNCH_H */
