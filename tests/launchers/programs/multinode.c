/* tests/launchers — the 2-node x 2-GPU check (tools/gpu-multinode.sh): 4
 * ranks in two groups of 2 whose NCCL_HOSTID differ, so the world has two
 * LSA teams of 2. Joins with ncore_comm_init_from_env alone and checks, one
 * line each ("multinode: rank R CHECK ok" or "... FAIL: why"):
 *   teams       lsa_size 2, and rank r's team is {2*(r/2), 2*(r/2)+1}
 *   allreduce   sum of rank+1 over the world (10)
 *   allgather   every rank's value in rank order
 *   sendrecv    to and from rank (r+2)%4, the other team, in one group
 *   put_in_team put_signal into the team peer's window, waited for, data right
 *   put_across  put_signal to the other team: NCORE_ERR_NOT_SUPPORTED, as
 *               documented (NCCL 2.28 has no host RMA), and its peer pointer NULL
 *   split       ncore_comm_split by node: size 2, allreduce 3 or 7
 * Also runs on the host backend (one team of 4: put_across then succeeds,
 * and the team checks expect the whole world), so its logic is tested in CI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncore.h>

static int rank, failures;
static ncore_backend_t backend;
static ncore_stream_t stream;

static void report(const char *check, int ok, const char *why) {
  printf("multinode: rank %d %s %s%s%s\n", rank, check, ok ? "ok" : "FAIL",
         ok ? "" : ": ", ok ? "" : why);
  fflush(stdout);
  failures += !ok;
}

/* A call that must succeed; a failure is reported under check. */
static int call(const char *check, ncore_status_t status) {
  if (status == NCORE_OK) return 1;
  report(check, 0, ncore_last_error_message());
  return 0;
}

/* count int32 values to the device and back. */
static int32_t *device_ints(const int32_t *host, int count) {
  int32_t *d = NULL;
  if (ncore_mem_alloc((void **)&d, sizeof(int32_t) * count, backend) != NCORE_OK) return NULL;
  ncore_memcpy(d, host, sizeof(int32_t) * count, NCORE_MEMCPY_DEFAULT, stream, backend);
  return d;
}
static void host_ints(ncore_comm_t comm, int32_t *host, const int32_t *d, int count) {
  ncore_comm_synchronize(comm, stream);
  ncore_memcpy(host, d, sizeof(int32_t) * count, NCORE_MEMCPY_DEFAULT, stream, backend);
  ncore_stream_synchronize(stream, backend);
}

static void check_collectives(ncore_comm_t comm, int n) {
  int32_t one = rank + 1, got[64];
  int32_t *d = device_ints(&one, 1), *all = device_ints(got, n);
  if (call("allreduce", ncore_allreduce(comm, d, d, 1, NCORE_INT32, NCORE_SUM, stream))) {
    host_ints(comm, got, d, 1);
    report("allreduce", got[0] == n * (n + 1) / 2, "wrong sum");
  }
  if (call("allgather", ncore_allgather(comm, d, all, 1, NCORE_INT32, stream))) {
    host_ints(comm, got, all, n);
    int ok = 1;
    for (int r = 0; r < n; r++) ok &= got[r] == n * (n + 1) / 2;
    report("allgather", ok, "wrong values");
  }
  ncore_mem_free(d, backend);
  ncore_mem_free(all, backend);
}

static void check_sendrecv(ncore_comm_t comm, int n) {
  int peer = (rank + n / 2) % n;
  int32_t mine = 100 + rank, got = -1;
  int32_t *s = device_ints(&mine, 1), *r = device_ints(&got, 1);
  ncore_group_start();
  ncore_status_t st1 = ncore_send(comm, s, 1, NCORE_INT32, peer, stream);
  ncore_status_t st2 = ncore_recv(comm, r, 1, NCORE_INT32, peer, stream);
  ncore_status_t st3 = ncore_group_end();
  if (call("sendrecv", st1) && call("sendrecv", st2) && call("sendrecv", st3)) {
    host_ints(comm, &got, r, 1);
    report("sendrecv", got == 100 + peer, "wrong value from the other team");
  }
  ncore_mem_free(s, backend);
  ncore_mem_free(r, backend);
}

static void check_onesided(ncore_comm_t comm, int n, int lsa_size) {
  int team_peer = rank ^ 1, other = (rank + n / 2) % n;
  /* Each sender puts into its own slot of the receiver's window. */
  int32_t mine = 1000 + rank, zeros[64] = {0}, got[64];
  int32_t *src = device_ints(&mine, 1), *buf = device_ints(zeros, n);
  size_t slot = (size_t)rank; /* in elements of the dtype */
  ncore_window_t window;
  if (!call("put_in_team", ncore_register_window(&window, comm, buf, sizeof(int32_t) * n,
                                                 NCORE_WINDOW_DEFAULT)))
    return;
  ncore_wait_signal_desc_t wait = NCORE_WAIT_SIGNAL_DESC_INIT;
  wait.peer = team_peer;
  if (call("put_in_team", ncore_put_signal(comm, src, 1, NCORE_INT32, team_peer, window, slot,
                                           0, 0, 0, stream)) &&
      call("put_in_team", ncore_wait_signal(comm, &wait, 1, stream))) {
    host_ints(comm, got, buf, n);
    report("put_in_team", got[team_peer] == 1000 + team_peer, "wrong value from the team peer");
  }
  void *pointer = (void *)1;
  ncore_status_t across = ncore_put_signal(comm, src, 1, NCORE_INT32, other, window, slot,
                                           0, 0, 0, stream);
  ncore_window_peer_device_pointer(window, other, 0, &pointer);
  if (lsa_size < n)
    report("put_across", across == NCORE_ERR_NOT_SUPPORTED && pointer == NULL,
           across == NCORE_ERR_NOT_SUPPORTED ? "peer pointer not NULL"
                                              : ncore_status_string(across));
  else
    report("put_across", across == NCORE_OK && pointer != NULL, "one team: must work");
  if (across == NCORE_OK) {
    /* Take the signal the other team's rank sent us, so nothing is left. */
    wait.peer = other;
    ncore_wait_signal(comm, &wait, 1, stream);
  }
  ncore_comm_synchronize(comm, stream);
  int32_t dummy = 0, *d = device_ints(&dummy, 1);
  ncore_allreduce(comm, d, d, 1, NCORE_INT32, NCORE_SUM, stream); /* nobody puts any more */
  ncore_comm_synchronize(comm, stream);
  ncore_window_close(window);
  ncore_mem_free(d, backend);
  ncore_mem_free(src, backend);
  ncore_mem_free(buf, backend);
}

static void check_split(ncore_comm_t comm, int n) {
  ncore_comm_t node;
  if (!call("split", ncore_comm_split(comm, rank / 2, rank, &node, NULL))) return;
  int size = 0;
  ncore_comm_size(node, &size);
  int32_t one = rank + 1, got = 0;
  int32_t *d = device_ints(&one, 1);
  if (call("split", ncore_allreduce(node, d, d, 1, NCORE_INT32, NCORE_SUM, stream))) {
    host_ints(node, &got, d, 1);
    int first = rank / 2 * 2;
    report("split", size == 2 && got == (first + 1) + (first + 2), "wrong size or sum");
  }
  ncore_mem_free(d, backend);
  ncore_comm_destroy(node);
  (void)n;
}

int main(void) {
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = 120000;
  ncore_comm_t comm;
  int n = 0, lsa_size = 0, lsa_rank = 0;
  if (ncore_comm_init_from_env(&comm, &config) != NCORE_OK) {
    fprintf(stderr, "multinode: init: %s\n", ncore_last_error_message());
    return 1;
  }
  ncore_comm_rank(comm, &rank);
  ncore_comm_size(comm, &n);
  ncore_comm_backend(comm, &backend);
  ncore_comm_lsa_size(comm, &lsa_size);
  ncore_comm_lsa_rank(comm, &lsa_rank);
  ncore_stream_create(&stream, backend);
  if (n != 4) {
    fprintf(stderr, "multinode: needs 4 ranks, has %d\n", n);
    return 1;
  }
  int two_teams = backend == NCORE_BACKEND_NCCL;
  report("teams", two_teams ? lsa_size == 2 && lsa_rank == rank % 2
                            : lsa_size == 4 && lsa_rank == rank,
         "unexpected LSA team (NCCL_HOSTID per group?)");
  check_collectives(comm, n);
  check_sendrecv(comm, n);
  check_onesided(comm, n, lsa_size);
  check_split(comm, n);
  ncore_stream_destroy(stream, backend);
  ncore_comm_destroy(comm);
  printf("multinode: rank %d done, %d failed\n", rank, failures);
  return failures ? 1 : 0;
}
