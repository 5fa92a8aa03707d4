/* tests/soak/two_jobs_one_id: the isolation audit's case of two jobs sharing one id, as a
 * stress run (not part of make test: what it measures is a race). Two
 * jobs of two ranks each start at once with ONE unique id, job A's ranks
 * contributing 100 and 101 to an allreduce, job B's 200 and 201; which
 * process meets which is up to the scheduler. Counts, over TRIALS trials,
 * the processes that reported success with a sum mixing both jobs (e340640:
 * 1 trial in 10), and how the others ended.
 *
 * Why a residue is possible at all: rank 0 refuses a second claimant of a
 * rank when it sees one — while the ranks join, once more when the join
 * completes, and whenever it waits in a call — but a stranger that took a
 * rank whose real owner connects only after that, while the communicator's
 * calls all complete without waiting, is indistinguishable from the real
 * one: one id is all a rank has to show (docs/reliability.md).
 *
 * Usage: two_jobs_one_id [TRIALS] (default 100). Exit status 1 if any
 * process reported a mixed sum. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ncore.h>

enum { OK_RIGHT = 0, OK_MIXED = 1, FAILED = 2 };

/* One process: rank `rank` of job `job`. Its outcome as exit status. */
static int one_process(const ncore_unique_id_t *id, int job, int rank) {
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.backend = NCORE_BACKEND_HOST;
  config.timeout_ms = 1000;
  ncore_comm_t comm;
  if (ncore_comm_init_rank(&comm, 2, id, rank, &config) != NCORE_OK) return FAILED;
  int32_t v = (job ? 200 : 100) + rank;
  ncore_status_t st = ncore_allreduce(comm, &v, &v, 1, NCORE_INT32, NCORE_SUM, NULL);
  ncore_comm_destroy(comm);
  if (st != NCORE_OK) return FAILED;
  return v == (job ? 401 : 201) ? OK_RIGHT : OK_MIXED;
}

int main(int argc, char **argv) {
  int trials = argc > 1 ? atoi(argv[1]) : 100;
  long counts[3] = {0, 0, 0};
  int mixed_trials = 0;
  for (int t = 0; t < trials; t++) {
    ncore_unique_id_t id;
    if (ncore_get_unique_id(&id, NCORE_BACKEND_HOST) != NCORE_OK) return 2;
    pid_t kids[4];
    fflush(stdout);
    for (int k = 0; k < 4; k++) {
      kids[k] = fork();
      if (kids[k] == 0) _exit(one_process(&id, k / 2, k % 2));
    }
    int mixed = 0;
    for (int k = 0; k < 4; k++) {
      int status = 0;
      int outcome = waitpid(kids[k], &status, 0) == kids[k] && WIFEXITED(status)
                        ? WEXITSTATUS(status) : FAILED;
      counts[outcome <= FAILED ? outcome : FAILED]++;
      mixed |= outcome == OK_MIXED;
    }
    mixed_trials += mixed;
  }
  printf("two_jobs_one_id: %d trials, %d with a mixed sum reported as success; "
         "processes: %ld right sums, %ld mixed sums, %ld failed\n",
         trials, mixed_trials, counts[OK_RIGHT], counts[OK_MIXED], counts[FAILED]);
  return mixed_trials ? 1 : 0;
}
