/* core — the variables of launched jobs, as one description shared by the
 * library (ncore_comm_init_from_env), the launcher (core/launcher) and the
 * test harness (tests/harness), which all include this header.
 * ncore's launcher (ncore-run, python -m ncore.run) gives each rank:
 *   NCORE_RANK        this rank, in [0, NCORE_NRANKS)
 *   NCORE_NRANKS      the number of ranks
 *   NCORE_LOCAL_RANK  the rank on this machine
 *   NCORE_UNIQUE_ID   the 128-byte ncore_unique_id_t as 256 lowercase hex
 *                     characters (either case is read)
 *   NCORE_JOB_SECRET  the job's secret: 64 lowercase hex characters of 32
 *                     random bytes, new for every launch, which every rank
 *                     proves to the store of later ids (core/launch_secret.h;
 *                     any launcher may set it, or NCORE_JOB_SECRET_FILE)
 * and, for several NCCL ranks per GPU (--oversubscribe), NCORE_OVERSUBSCRIBE=1
 * with NCCL_HOSTID and NCCL_SOCKET_IFNAME (core_launch_isolate_host).
 * core_launchers is every launcher's rank, size and local-rank variables.
 * Header-only (static inline): the launcher and the harness are separate
 * programs that must not depend on the library's hidden symbols. */
#ifndef NCORE_CORE_LAUNCH_VARS_H
#define NCORE_CORE_LAUNCH_VARS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <ncore.h>

/* How rank 0's unique id reaches the other ranks of a launcher's job. */
typedef enum core_launch_exchange {
  CORE_LAUNCH_ID_NONE = 0,   /* one rank: nobody to tell */
  CORE_LAUNCH_ID_IN_ENV,     /* ncore-run put it in NCORE_UNIQUE_ID */
  CORE_LAUNCH_ID_PMIX,       /* the launcher's PMIx server (launch_pmix.c) */
  CORE_LAUNCH_ID_PMI1,       /* PMI-1 on PMI_FD, MPICH's Hydra (launch_pmi1.c) */
  CORE_LAUNCH_ID_TCP         /* MASTER_ADDR:MASTER_PORT (launch_tcp.c) */
} core_launch_exchange_t;

/* One launcher's variables. A process may carry several launchers'
 * variables: one launcher started inside another (torchrun or mpirun in a
 * Slurm step: the inner one's are the job), or stale ones exported from an
 * earlier run (a mistake). The rows are in the order of who wins: a
 * launcher that runs inside others comes before them. */
typedef struct core_launcher {
  const char *name;
  const char *rank, *size, *local_rank;
  const char *guard;   /* also required (NULL: none) */
  core_launch_exchange_t exchange;
  unsigned inside;     /* bit i: it may run as a task of core_launchers[i],
                          whose variables then describe the outer job */
} core_launcher_t;

enum {
  CORE_LAUNCHER_NCORE_RUN, CORE_LAUNCHER_TORCHRUN, CORE_LAUNCHER_OPEN_MPI,
  CORE_LAUNCHER_MPICH, CORE_LAUNCHER_SLURM, CORE_LAUNCHER_TORCH_NAMES,
  CORE_LAUNCHER_COUNT
};

#define CORE_LAUNCHER_BIT(i) (1u << (i))

static const core_launcher_t core_launchers[CORE_LAUNCHER_COUNT] = {
    /* ncore-run started inside another launcher removes that launcher's
     * variables from its ranks (core_launch_leave_outer_job), so any other
     * launcher's variables beside its own are stale. */
    [CORE_LAUNCHER_NCORE_RUN] = {"ncore-run", "NCORE_RANK", "NCORE_NRANKS",
                                 "NCORE_LOCAL_RANK", NULL,
                                 CORE_LAUNCH_ID_IN_ENV, 0},
    /* torchrun's agent (TORCHELASTIC_RUN_ID) is often a task of srun or
     * mpirun: `srun -N 2 torchrun --nnodes 2 ...`. */
    [CORE_LAUNCHER_TORCHRUN] = {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                                "TORCHELASTIC_RUN_ID", CORE_LAUNCH_ID_TCP,
                                CORE_LAUNCHER_BIT(CORE_LAUNCHER_OPEN_MPI) |
                                    CORE_LAUNCHER_BIT(CORE_LAUNCHER_MPICH) |
                                    CORE_LAUNCHER_BIT(CORE_LAUNCHER_SLURM)},
    /* mpirun in a Slurm allocation starts its daemons with srun, and the
     * ranks inherit the daemons' SLURM_PROCID and SLURM_NTASKS. */
    [CORE_LAUNCHER_OPEN_MPI] = {"Open MPI", "OMPI_COMM_WORLD_RANK",
                                "OMPI_COMM_WORLD_SIZE",
                                "OMPI_COMM_WORLD_LOCAL_RANK", NULL,
                                CORE_LAUNCH_ID_PMIX,
                                CORE_LAUNCHER_BIT(CORE_LAUNCHER_SLURM)},
    [CORE_LAUNCHER_MPICH] = {"MPICH (PMI)", "PMI_RANK", "PMI_SIZE",
                             "MPI_LOCALRANKID", NULL, CORE_LAUNCH_ID_PMI1,
                             CORE_LAUNCHER_BIT(CORE_LAUNCHER_SLURM)},
    /* SLURM_PROCID is also set in a batch script, which is no task of a
     * step: only srun's tasks have a step id. */
    [CORE_LAUNCHER_SLURM] = {"Slurm", "SLURM_PROCID", "SLURM_NTASKS",
                             "SLURM_LOCALID", "SLURM_STEP_ID",
                             CORE_LAUNCH_ID_PMIX, 0},
    /* torchrun's names without its agent: set by hand or by a script for
     * torch's init_process_group. */
    [CORE_LAUNCHER_TORCH_NAMES] = {"RANK/WORLD_SIZE (torchrun's variables)",
                                   "RANK", "WORLD_SIZE", "LOCAL_RANK", NULL,
                                   CORE_LAUNCH_ID_TCP, 0},
};

/* Whether launcher row's variables are in this environment: its rank
 * variable set and not empty, and its guard set. */
static inline int core_launcher_present(const core_launcher_t *row) {
  const char *rank = getenv(row->rank);
  return rank != NULL && rank[0] != '\0' &&
         (row->guard == NULL || getenv(row->guard) != NULL);
}

/* Length of NCORE_UNIQUE_ID's value: two hex characters per byte. */
#define CORE_LAUNCH_ID_HEX_CHARS (2 * NCORE_UNIQUE_ID_BYTES)

/* Value of one hex digit, or -1 when c is none. */
static inline int core_launch_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes hex (exactly 256 hex characters) into *out; 0, or -1 leaving *out
 * untouched when hex is NULL or malformed. */
static inline int core_launch_id_decode(const char *hex, ncore_unique_id_t *out) {
  if (!hex || !out || strlen(hex) != CORE_LAUNCH_ID_HEX_CHARS) return -1;
  ncore_unique_id_t id;
  for (size_t i = 0; i < NCORE_UNIQUE_ID_BYTES; i++) {
    int hi = core_launch_hex_digit(hex[2 * i]);
    int lo = core_launch_hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    id.internal[i] = (char)(hi << 4 | lo);
  }
  *out = id;
  return 0;
}

/* Encodes *id as 256 lowercase hex characters plus a NUL into out. */
static inline void core_launch_id_encode(
    const ncore_unique_id_t *id, char out[CORE_LAUNCH_ID_HEX_CHARS + 1]) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < NCORE_UNIQUE_ID_BYTES; i++) {
    unsigned char b = (unsigned char)id->internal[i];
    out[2 * i] = digits[b >> 4];
    out[2 * i + 1] = digits[b & 15];
  }
  out[CORE_LAUNCH_ID_HEX_CHARS] = '\0';
}

/* Length of the NCORE_JOB_SECRET ncore-run makes: 32 random bytes in hex. */
#define CORE_LAUNCH_SECRET_HEX_CHARS 64

/* Writes a new job secret (32 bytes from getrandom, as 64 lowercase hex
 * characters and a NUL) into out; 0, or -1 with errno when the kernel
 * gives no random bytes. */
static inline int core_launch_secret_generate(
    char out[CORE_LAUNCH_SECRET_HEX_CHARS + 1]) {
  static const char digits[] = "0123456789abcdef";
  unsigned char bytes[CORE_LAUNCH_SECRET_HEX_CHARS / 2];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    got += (size_t)n;
  }
  for (size_t i = 0; i < sizeof bytes; i++) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  out[CORE_LAUNCH_SECRET_HEX_CHARS] = '\0';
  memset(bytes, 0, sizeof bytes);
  return 0;
}

/* Parses text as an int in [0, 2^30]; 0, or -1 when it is not one. */
static inline int core_launch_parse_count(const char *text, int *out) {
  if (!text || !*text) return -1;
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1 << 30) return -1;
  *out = (int)value;
  return 0;
}

/* NCORE_OVERSUBSCRIBE: 1 when set to a non-empty value other than "0". */
static inline int core_launch_oversubscribe(void) {
  const char *v = getenv("NCORE_OVERSUBSCRIBE");
  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* Makes this process look like its own host to NCCL, so that several NCCL
 * ranks can share one GPU (oversubscription): NCCL refuses two ranks on one
 * GPU only because they share a host identity, which it takes from
 * NCCL_HOSTID when set. Each rank gets NCCL_HOSTID=ncore-<job>-rank<rank>
 * and NCCL_SOCKET_IFNAME=lo (the ranks then connect through NCCL's socket
 * transport on loopback, as ranks on different nodes would: correct, slow,
 * and with no load/store-accessible peers). Variables already set are kept.
 * Call in the rank's process before NCCL is loaded (between fork and exec).
 * job: any text unique to this launch (e.g. the launcher's pid). */
static inline void core_launch_isolate_host(const char *job, int rank) {
  char id[160];
  snprintf(id, sizeof id, "ncore-%s-rank%d", job, rank);
  setenv("NCORE_OVERSUBSCRIBE", "1", 1);
  setenv("NCCL_HOSTID", id, 0);
  setenv("NCCL_SOCKET_IFNAME", "lo", 0);
}

/* For ncore-run started as a task of another launcher (srun, mpirun):
 * writes one line to stderr saying that its nranks ranks form a job of
 * their own, and removes that launcher's rank, size and local-rank
 * variables from the environment its ranks inherit, so that they neither
 * join the outer job nor are refused for carrying two launchers' variables.
 * Does nothing outside another launcher. */
static inline void core_launch_leave_outer_job(int nranks) {
  for (int i = CORE_LAUNCHER_OPEN_MPI; i <= CORE_LAUNCHER_SLURM; i++) {
    const core_launcher_t *row = &core_launchers[i];
    if (!core_launcher_present(row)) continue;
    const char *size = getenv(row->size);
    fprintf(stderr,
            "ncore-run: started by %s as task %s of %s (%s, %s): its %d "
            "ranks are a job of their own, apart from %s's other tasks "
            "(%s, %s and %s are left out of their environment)\n",
            row->name, getenv(row->rank), size ? size : "?", row->rank,
            row->size, nranks, row->name, row->rank, row->size,
            row->local_rank);
    unsetenv(row->rank);
    unsetenv(row->size);
    unsetenv(row->local_rank);
  }
}

#endif
