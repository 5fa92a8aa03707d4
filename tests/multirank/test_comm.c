/* Multi-rank tests: communicator bootstrap, split, shrink, finalize,
 * destroy, abort, queries, init_all. Usage: test_comm NRANKS. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "multirank.h"
#include "testbuf.h"

/* Sums v over comm with a one-element int64 allreduce; *out the result. */
static void sum_over(ncore_comm_t comm, int64_t v, int64_t *out) {
  int64_t *buf = tb_alloc(sizeof v);
  CHECK(buf);
  tb_put(buf, &v, sizeof v);
  CHECK_OK(ncore_allreduce(comm, buf, buf, 1, NCORE_INT64, NCORE_SUM, NULL));
  tb_get(out, buf, sizeof *out);
  tb_free(buf);
}

MR_TEST(init_rank_argument_errors) {
  ncore_comm_t c = NCORE_NULL_HANDLE;
  ncore_comm_config_t config = mr_config();
  CHECK_STATUS(ncore_comm_init_rank(NULL, nranks, id, rank, &config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_init_rank: out");
  CHECK_STATUS(ncore_comm_init_rank(&c, nranks, NULL, rank, &config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("id");
  CHECK_STATUS(ncore_comm_init_rank(&c, 0, id, rank, &config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("nranks");
  CHECK_STATUS(ncore_comm_init_rank(&c, nranks, id, -1, &config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("rank");
  CHECK_STATUS(ncore_comm_init_rank(&c, nranks, id, nranks, &config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("rank");
  CHECK_EQ(c, NCORE_NULL_HANDLE);
  /* The id is still usable after the rejected calls. */
  MR_COMM(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(queries_on_live_comm) {
  MR_COMM(comm);
  int v = -7;
  CHECK_OK(ncore_comm_rank(comm, &v));
  CHECK_EQ(v, rank);
  CHECK_OK(ncore_comm_size(comm, &v));
  CHECK_EQ(v, nranks);
  ncore_backend_t b;
  CHECK_OK(ncore_comm_backend(comm, &b));
  CHECK_EQ(b, harness_backend());
  CHECK_OK(ncore_comm_device(comm, &v));
  if (harness_is_host()) CHECK_EQ(v, -1);
  else CHECK(v >= 0);
  int lsa_rank = -1, lsa_size = -1;
  CHECK_OK(ncore_comm_lsa_rank(comm, &lsa_rank));
  CHECK_OK(ncore_comm_lsa_size(comm, &lsa_size));
  CHECK(lsa_rank >= 0 && lsa_rank < lsa_size && lsa_size <= nranks);
  if (harness_is_host()) {
    CHECK_EQ(lsa_rank, rank);
    CHECK_EQ(lsa_size, nranks);
  }
  ncore_status_t async = NCORE_ERR_INTERNAL;
  CHECK_OK(ncore_comm_async_error(comm, &async));
  CHECK_EQ(async, NCORE_OK);
  ncore_gin_type_t gin = (ncore_gin_type_t)-1, railed = (ncore_gin_type_t)-1;
  CHECK_OK(ncore_comm_gin_type(comm, &gin));
  CHECK_OK(ncore_comm_railed_gin_type(comm, &railed));
  if (harness_is_host()) {
    CHECK_EQ(gin, NCORE_GIN_TYPE_NONE);
    CHECK_EQ(railed, NCORE_GIN_TYPE_NONE);
  }
  CHECK_STATUS(ncore_comm_size(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_device(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_backend(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_lsa_rank(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_lsa_size(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_async_error(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_gin_type(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  int64_t sum = 0;
  sum_over(comm, rank + 1, &sum);
  CHECK_EQ(sum, (int64_t)nranks * (nranks + 1) / 2);
  CHECK_OK(ncore_comm_destroy(comm));
  /* Every query answers CLOSED after destroy. */
  CHECK_STATUS(ncore_comm_rank(comm, &v), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_size(comm, &v), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_device(comm, &v), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_backend(comm, &b), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_lsa_rank(comm, &v), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_lsa_size(comm, &v), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_async_error(comm, &async), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_gin_type(comm, &gin), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_railed_gin_type(comm, &gin), NCORE_ERR_CLOSED);
  CHECK_EQ(ncore_comm_is_valid(comm), 0);
}

/* Teams (ncore/team.h): world, LSA and rail as NCCL's device API defines
 * them, from the same rank / size / LSA team the queries above answer, and
 * the conversions back to world and LSA ranks, with bad teams refused. */
MR_TEST(teams_are_views_of_the_world_and_lsa_ranks) {
  MR_COMM(comm);
  int lsa_rank = -1, lsa_size = -1;
  CHECK_OK(ncore_comm_lsa_rank(comm, &lsa_rank));
  CHECK_OK(ncore_comm_lsa_size(comm, &lsa_size));
  ncore_team_t world = {0, 0, 0}, lsa = {0, 0, 0}, rail = {0, 0, 0};
  CHECK_OK(ncore_comm_team_world(comm, &world));
  CHECK_OK(ncore_comm_team_lsa(comm, &lsa));
  CHECK_OK(ncore_comm_team_rail(comm, &rail));
  CHECK(world.n_ranks == nranks && world.rank == rank && world.stride == 1);
  CHECK(lsa.n_ranks == lsa_size && lsa.rank == lsa_rank && lsa.stride == 1);
  CHECK(rail.n_ranks == nranks / lsa_size && rail.rank == rank / lsa_size &&
        rail.stride == lsa_size);
  if (harness_is_host()) CHECK(rail.n_ranks == 1 && rail.rank == 0);
  int out = -1;
  for (int i = 0; i < world.n_ranks; i++) {
    CHECK_OK(ncore_comm_team_rank_to_world(comm, &world, i, &out));
    CHECK_EQ(out, i);
  }
  for (int i = 0; i < lsa.n_ranks; i++) {
    CHECK_OK(ncore_comm_team_rank_to_world(comm, &lsa, i, &out));
    CHECK_EQ(out, rank - lsa_rank + i);
    CHECK_OK(ncore_comm_team_rank_to_lsa(comm, &lsa, i, &out));
    CHECK_EQ(out, i);
  }
  CHECK_OK(ncore_comm_team_rank_to_world(comm, &rail, rail.rank, &out));
  CHECK_EQ(out, rank);
  /* A caller-made team: every other rank, seen from an even rank. */
  if (rank % 2 == 0 && nranks >= 3) {
    ncore_team_t evens = {(nranks + 1) / 2, rank / 2, 2};
    CHECK_OK(ncore_comm_team_rank_to_world(comm, &evens, 1, &out));
    CHECK_EQ(out, 2);
  }
  /* Bad input: a clear INVALID_ARGUMENT naming the argument. */
  ncore_team_t bad = {0, 0, 1};
  CHECK_STATUS(ncore_comm_team_rank_to_world(comm, &bad, 0, &out),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ncore_last_error_message(), "team") != NULL);
  CHECK_STATUS(ncore_comm_team_rank_to_world(comm, &world, nranks, &out),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ncore_last_error_message(), "team_rank") != NULL);
  CHECK_STATUS(ncore_comm_team_rank_to_world(comm, NULL, 0, &out),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_team_rank_to_world(comm, &world, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_team_world(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  /* A world peer outside the LSA team has no LSA index (NCCL only). */
  if (lsa_size < nranks) {
    int outside = (rank - lsa_rank + lsa_size) % nranks;
    CHECK_STATUS(ncore_comm_team_rank_to_lsa(comm, &world, outside, &out),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ncore_last_error_message(), "LSA team") != NULL);
  }
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_comm_team_world(comm, &world), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_comm_team_rank_to_world(comm, &lsa, 0, &out), NCORE_ERR_CLOSED);
}

/* CFT (ncore/cft.h): the arguments are checked on every backend; then the
 * host backend (no compute fabric) and NCCL older than 2.31 refuse every
 * call, naming NCCL 2.31. On NCCL 2.31+ the answer is NCCL's (a team, or
 * its own refusal where the GPUs have no CFT): checked on a GPU. */
MR_TEST(cft_calls_check_their_arguments_and_name_nccl_2_31_where_there_is_none) {
  MR_COMM(comm);
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  CHECK_OK(ncore_library_info(&info));
  const int has_cft = !harness_is_host() && info.nccl_version >= 23100;
  char *mem = tb_alloc(4096);
  CHECK(mem);
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, 4096, 0));
  ncore_team_t team = {0, 0, 0};
  ncore_cft_le_info_t le = {0, 0};
  /* Bad input first, on every backend. */
  CHECK_STATUS(ncore_comm_team_cft(comm, 3, &team), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("mode: 3");
  CHECK_STATUS(ncore_comm_team_cft(comm, NCORE_CFT_TEAM_FLAT, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_team_cft_multimem(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_multimem_le_info(win, 4097, &le), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("offset");
  CHECK_STATUS(ncore_window_multimem_le_info(win, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_peer_le_info(win, 0, nranks, &le), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("peer");
  ncore_team_t bad = {2, 2, 1}, one = {1, 0, 1};
  CHECK_STATUS(ncore_window_cft_le_info(win, 0, 0, &bad, &le), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("team.rank");
  CHECK_STATUS(ncore_window_cft_le_info(win, 0, 0, NULL, &le), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_cft_le_info(win, 0, 1, &one, &le), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("peer_cft");
  CHECK_STATUS(ncore_comm_team_cft(NCORE_NULL_HANDLE, 0, &team), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_peer_le_info(NCORE_NULL_HANDLE, 0, 0, &le),
               NCORE_ERR_INVALID_ARGUMENT);
  /* Then the refusal where there is no CFT, naming where it is. */
  if (!has_cft) {
    CHECK_STATUS(ncore_comm_team_cft(comm, NCORE_CFT_TEAM_HIER_LSA, &team),
                 NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("2.31");
    CHECK_STATUS(ncore_comm_team_cft_multimem(comm, &team), NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("ncore_comm_team_cft_multimem");
    CHECK_STATUS(ncore_window_multimem_le_info(win, 4096, &le), NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("2.31");
    CHECK_STATUS(ncore_window_peer_le_info(win, 0, (rank + 1) % nranks, &le),
                 NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("ncore_window_peer_le_info");
    CHECK_STATUS(ncore_window_cft_le_info(win, 8, 0, &one, &le), NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("2.31");
  }
  CHECK_OK(ncore_window_close(win));
  tb_free(mem);
}

MR_TEST_EX(init_rank_times_out_when_a_rank_never_joins, MR_OWN_PROCESSES, 2) {
  if (rank == nranks - 1) return; /* never joins */
  ncore_comm_config_t config = mr_config();
  config.timeout_ms = 1000;
  ncore_comm_t c = NCORE_NULL_HANDLE;
  double t0 = mr_now_ms();
  /* NCCL: a rank whose timeout ends first leaves the bootstrap, and a rank
   * still in it may see that as a closed connection (REMOTE) before its own
   * timeout: either way it fails, within the timeout. */
  if (harness_is_host())
    CHECK_STATUS(ncore_comm_init_rank(&c, nranks, id, rank, &config), NCORE_ERR_TIMEOUT);
  else
    CHECK_STATUS_EITHER(ncore_comm_init_rank(&c, nranks, id, rank, &config),
                        NCORE_ERR_TIMEOUT, NCORE_ERR_REMOTE);
  double elapsed = mr_now_ms() - t0;
  CHECK_MESSAGE_CONTAINS("ncore_comm_init_rank");
  CHECK(elapsed >= (harness_is_host() ? 900 : 0));
  CHECK(elapsed < 4500);
  CHECK_EQ(c, NCORE_NULL_HANDLE);
}

MR_TEST_EX(init_rank_mismatched_nranks_fails_everywhere, MR_OWN_PROCESSES, 2) {
  ncore_comm_config_t config = mr_config();
  config.timeout_ms = 1500;
  ncore_comm_t c = NCORE_NULL_HANDLE;
  int claimed = rank == 0 ? nranks + 1 : nranks;
  double t0 = mr_now_ms();
  ncore_status_t st = ncore_comm_init_rank(&c, claimed, id, rank, &config);
  if (st == NCORE_OK) {
    harness_fail(__FILE__, __LINE__, "init with nranks %d (others %d) succeeded", claimed, nranks);
    return;
  }
  CHECK(st == NCORE_ERR_INVALID_USAGE || st == NCORE_ERR_INVALID_ARGUMENT ||
        st == NCORE_ERR_TIMEOUT || st == NCORE_ERR_REMOTE);
  CHECK(mr_now_ms() - t0 < 5000);
}

MR_TEST(split_by_color_orders_by_key) {
  MR_COMM(comm);
  ncore_comm_t sub = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_comm_split(comm, -2, 0, &sub, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("color");
  CHECK_STATUS(ncore_comm_split(comm, 0, 0, NULL, NULL), NCORE_ERR_INVALID_ARGUMENT);
  int color = rank % 2;
  /* key = -rank: the highest old rank of a color becomes new rank 0. */
  CHECK_OK(ncore_comm_split(comm, color, -rank, &sub, NULL));
  CHECK(sub != NCORE_NULL_HANDLE);
  int members = 0, position = 0;
  for (int r = 0; r < nranks; r++)
    if (r % 2 == color) {
      members++;
      if (r > rank) position++;
    }
  int v;
  CHECK_OK(ncore_comm_size(sub, &v));
  CHECK_EQ(v, members);
  CHECK_OK(ncore_comm_rank(sub, &v));
  CHECK_EQ(v, position);
  int64_t sum = 0, want = 0;
  sum_over(sub, rank, &sum);
  for (int r = color; r < nranks; r += 2) want += r;
  CHECK_EQ(sum, want);
  CHECK_OK(ncore_comm_destroy(sub));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(split_nocolor_gives_null_handle) {
  MR_COMM(comm);
  ncore_comm_t sub = (ncore_comm_t)123;
  int color = rank == 0 ? NCORE_SPLIT_NOCOLOR : 5;
  CHECK_OK(ncore_comm_split(comm, color, 0, &sub, NULL));
  if (rank == 0) {
    CHECK_EQ(sub, NCORE_NULL_HANDLE);
  } else {
    int v;
    CHECK_OK(ncore_comm_size(sub, &v));
    CHECK_EQ(v, nranks - 1);
    CHECK_OK(ncore_comm_rank(sub, &v));
    CHECK_EQ(v, rank - 1);
    int64_t sum = 0;
    sum_over(sub, 1, &sum);
    CHECK_EQ(sum, nranks - 1);
    CHECK_OK(ncore_comm_destroy(sub));
  }
  /* The parent still works after the split. */
  int64_t sum = 0;
  sum_over(comm, 1, &sum);
  CHECK_EQ(sum, nranks);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(split_with_config_backend_must_match) {
  MR_COMM(comm);
  ncore_comm_config_t config = mr_config();
  config.backend = harness_is_host() ? NCORE_BACKEND_NCCL : NCORE_BACKEND_HOST;
  ncore_comm_t sub = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_comm_split(comm, 0, rank, &sub, &config);
  CHECK(st == NCORE_ERR_INVALID_ARGUMENT || st == NCORE_ERR_UNAVAILABLE);
  config.backend = NCORE_BACKEND_AUTO;
  CHECK_OK(ncore_comm_split(comm, 0, rank, &sub, &config));
  int v;
  CHECK_OK(ncore_comm_size(sub, &v));
  CHECK_EQ(v, nranks);
  CHECK_OK(ncore_comm_destroy(sub));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(shrink_excludes_last_rank) {
  MR_COMM(comm);
  ncore_comm_t small = NCORE_NULL_HANDLE;
  int last = nranks - 1;
  int self = rank, out_of_range = nranks, dup[2] = {last, last};
  if (rank != last) {
    CHECK_STATUS(ncore_comm_shrink(comm, &self, 1, &small, NULL, 0), NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("exclude");
    CHECK_STATUS(ncore_comm_shrink(comm, &out_of_range, 1, &small, NULL, 0),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ncore_comm_shrink(comm, dup, 2, &small, NULL, 0), NCORE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ncore_comm_shrink(comm, &last, 1, &small, NULL, 99), NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("flags");
    CHECK_STATUS(ncore_comm_shrink(comm, &last, 1, NULL, NULL, 0), NCORE_ERR_INVALID_ARGUMENT);
    CHECK_OK(ncore_comm_shrink(comm, &last, 1, &small, NULL, NCORE_SHRINK_DEFAULT));
    int v;
    CHECK_OK(ncore_comm_size(small, &v));
    CHECK_EQ(v, nranks - 1);
    CHECK_OK(ncore_comm_rank(small, &v));
    CHECK_EQ(v, rank);
    int64_t sum = 0;
    sum_over(small, rank, &sum);
    CHECK_EQ(sum, (int64_t)(nranks - 1) * (nranks - 2) / 2);
    CHECK_OK(ncore_comm_destroy(small));
  }
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(shrink_with_nothing_excluded) {
  MR_COMM(comm);
  ncore_comm_t copy = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_shrink(comm, NULL, 0, &copy, NULL, 0));
  int v;
  CHECK_OK(ncore_comm_size(copy, &v));
  CHECK_EQ(v, nranks);
  int64_t sum = 0;
  sum_over(copy, 2, &sum);
  CHECK_EQ(sum, 2 * nranks);
  CHECK_OK(ncore_comm_destroy(copy));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(finalize_then_destroy) {
  MR_COMM(comm);
  CHECK_OK(ncore_comm_finalize(comm));
  CHECK_STATUS(ncore_comm_finalize(comm), NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("finalize");
  /* Queries remain valid; communication does not. */
  int v;
  CHECK_OK(ncore_comm_size(comm, &v));
  CHECK_EQ(v, nranks);
  int32_t *buf = tb_alloc(4);
  CHECK(buf);
  ncore_status_t st = ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL);
  CHECK(st != NCORE_OK);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_comm_finalize(comm), NCORE_ERR_CLOSED);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Every call that communicates or makes a resource answers INVALID_USAGE
 * on a finalized communicator (the headers say so); resources made before
 * finalize stay queryable and closable. */
MR_TEST(finalized_communicator_refuses_communication) {
  MR_COMM(comm);
  char *mem = tb_alloc(4096);
  CHECK(mem);
  ncore_symmetric_t sym;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 64));
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, 4096, 0));
  CHECK_OK(ncore_comm_finalize(comm));
  ncore_comm_t child = NCORE_NULL_HANDLE;
  ncore_registered_buffer_t rb;
  ncore_custom_redop_t op;
  ncore_window_t win2;
  ncore_symmetric_t sym2;
  ncore_dev_comm_t dev;
  float scalar = 2;
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = rank;
  CHECK_STATUS(ncore_register_buffer(&rb, comm, mem, 64), NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("finalized");
  CHECK_STATUS(ncore_create_pre_mul_sum(&op, comm, &scalar, NCORE_FLOAT32,
                                        NCORE_SCALAR_HOST_IMMEDIATE),
               NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_register_window(&win2, comm, mem, 64, 0), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_symmetric_alloc(&sym2, comm, 64), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_create_dev_comm(&dev, comm, NULL), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_signal(comm, rank, 0, 0, 0, NULL), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_wait_signal(comm, &d, 1, NULL), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_put_signal(comm, mem, 1, NCORE_UINT8, rank, win, 0, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_symmetric_put(sym, 0, mem, 8, rank, NULL), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_symmetric_get(mem, sym, 0, 8, rank, NULL), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_send(comm, mem, 1, NCORE_UINT8, rank, NULL), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_recv(comm, mem, 1, NCORE_UINT8, rank, NULL), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_comm_split(comm, 0, rank, &child, NULL), NCORE_ERR_INVALID_USAGE);
  CHECK_STATUS(ncore_comm_shrink(comm, NULL, 0, &child, NULL, 0), NCORE_ERR_INVALID_USAGE);
  size_t size = 0;
  CHECK_OK(ncore_window_size(win, &size));
  CHECK_EQ(size, 4096);
  CHECK_OK(ncore_symmetric_size(sym, &size));
  CHECK_OK(ncore_window_close(win));
  CHECK_OK(ncore_symmetric_free(sym));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(mem);
}

typedef struct blocked_recv {
  ncore_comm_t comm;
  int peer;
  void *buf;
  ncore_status_t status;
  char message[512];
  double returned_ms; /* when the blocked call returned */
} blocked_recv_t;

static void *recv_thread(void *arg) {
  blocked_recv_t *b = arg;
  /* Blocks in the recv (host) or in waiting for its stream (NCCL). */
  b->status = mr_complete(b->comm,
                          ncore_recv(b->comm, b->buf, 4, NCORE_INT32, b->peer, NULL),
                          NULL);
  b->returned_ms = mr_now_ms();
  snprintf(b->message, sizeof b->message, "%s", ncore_last_error_message());
  return NULL;
}

MR_TEST_EX(abort_unblocks_recv_and_peers_see_remote, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  void *buf = tb_alloc(16);
  CHECK(buf);
  mr_barrier(comm);
  if (rank == 0) {
    blocked_recv_t b = {comm, 1, buf, NCORE_OK, "", 0};
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, recv_thread, &b), 0);
    usleep(300 * 1000);
    double t0 = mr_now_ms();
    CHECK_OK(ncore_comm_abort(comm));
    pthread_join(t, NULL);
    if (b.status != NCORE_ERR_CLOSED) {
      harness_fail(__FILE__, __LINE__, "recv blocked during abort: expected NCORE_ERR_CLOSED, got %s (\"%s\")",
                   ncore_status_string(b.status), b.message);
      return;
    }
    /* What abort promises: the blocked wait returns at once. Abort itself
     * returns when NCCL stopped the communicator's work (ncclCommRevoke
     * joins its proxy threads: ~10 s with 4 ranks over sockets on NCCL
     * 2.30.7); the test holds it to the communicator's timeout. */
    CHECK(b.returned_ms - t0 < 2000);
    CHECK(mr_now_ms() - t0 < MR_TIMEOUT_MS);
    CHECK_EQ(ncore_comm_is_valid(comm), 0);
    int v;
    CHECK_STATUS(ncore_comm_rank(comm, &v), NCORE_ERR_CLOSED);
    CHECK_OK(ncore_comm_abort(comm));
    CHECK_OK(ncore_comm_destroy(comm));
  } else {
    /* Rank 0 never sends and then aborts: this recv must fail with REMOTE
     * well before the timeout. */
    double t0 = mr_now_ms();
    CHECK_STATUS(mr_complete(comm, ncore_recv(comm, buf, 4, NCORE_INT32, 0, NULL), NULL),
                 NCORE_ERR_REMOTE);
    CHECK(mr_now_ms() - t0 < MR_TIMEOUT_MS);
    ncore_status_t async = NCORE_OK;
    CHECK_OK(ncore_comm_async_error(comm, &async));
    CHECK_EQ(async, NCORE_ERR_REMOTE);
    CHECK_OK(ncore_comm_destroy(comm));
  }
  tb_free(buf);
}

MR_TEST(init_all_drives_ranks_from_one_thread) {
  /* One process makes every rank; only rank 0 of the test does this. */
  if (rank != 0) return;
  (void)id;
  if (!harness_is_host()) {
    int count = 0;
    ncore_device_count(NCORE_BACKEND_NCCL, &count);
    if (count < nranks) SKIP("needs %d devices", nranks);
  }
  ncore_comm_t comms[8];
  int n = nranks > 8 ? 8 : nranks;
  CHECK_STATUS(ncore_comm_init_all(comms, 0, NULL, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ndev");
  CHECK_STATUS(ncore_comm_init_all(NULL, n, NULL, NULL), NCORE_ERR_INVALID_ARGUMENT);
  if (harness_is_host()) {
    int devs[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_STATUS(ncore_comm_init_all(comms, n, devs, NULL), NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("devlist");
    for (int i = 0; i < 8; i++) devs[i] = -1;
    CHECK_OK(ncore_comm_init_all(comms, n, devs, NULL));
    for (int i = 0; i < n; i++) CHECK_OK(ncore_comm_destroy(comms[i]));
  }
  CHECK_OK(ncore_comm_init_all(comms, n, NULL, NULL));
  int64_t *bufs[8];
  for (int i = 0; i < n; i++) {
    int v;
    CHECK_OK(ncore_comm_rank(comms[i], &v));
    CHECK_EQ(v, i);
    CHECK_OK(ncore_comm_size(comms[i], &v));
    CHECK_EQ(v, n);
    bufs[i] = tb_alloc(sizeof(int64_t));
    CHECK(bufs[i]);
    int64_t x = 10 + i;
    tb_put(bufs[i], &x, sizeof x);
  }
  CHECK_OK(ncore_group_start());
  for (int i = 0; i < n; i++)
    CHECK_OK(ncore_allreduce(comms[i], bufs[i], bufs[i], 1, NCORE_INT64, NCORE_SUM, NULL));
  CHECK_OK(ncore_group_end());
  for (int i = 0; i < n; i++) {
    int64_t x = 0;
    tb_get(&x, bufs[i], sizeof x);
    CHECK_EQ(x, 10 * n + n * (n - 1) / 2);
    tb_free(bufs[i]);
    CHECK_OK(ncore_comm_destroy(comms[i]));
  }
}

MR_TEST(unique_id_for_other_backend_rejected) {
  /* An id made for the host backend cannot start an NCCL communicator and
   * vice versa; on a CPU machine NCCL is unavailable instead. */
  ncore_comm_config_t config = mr_config();
  config.backend = harness_is_host() ? NCORE_BACKEND_NCCL : NCORE_BACKEND_HOST;
  ncore_comm_t c = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_comm_init_rank(&c, nranks, id, rank, &config);
  if (st != NCORE_ERR_UNAVAILABLE) {
    CHECK_EQ(st, NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("id");
  }
  MR_COMM(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

typedef struct thread_rank {
  const ncore_unique_id_t *id;
  int rank, nranks;
  ncore_status_t status;
  int64_t sum;
  char message[512];
} thread_rank_t;

/* One rank as a thread: init, allreduce its rank + 1, destroy. */
static void *thread_rank_main(void *arg) {
  thread_rank_t *t = arg;
  ncore_comm_config_t config = mr_config();
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  t->status = ncore_comm_init_rank(&comm, t->nranks, t->id, t->rank, &config);
  if (t->status == NCORE_OK) {
    int64_t *buf = NULL;
    t->status = ncore_mem_alloc((void **)&buf, 8, NCORE_BACKEND_HOST);
    if (t->status == NCORE_OK) {
      *buf = t->rank + 1;
      t->status = ncore_allreduce(comm, buf, buf, 1, NCORE_INT64, NCORE_SUM, NULL);
      t->sum = *buf;
      ncore_mem_free(buf, NCORE_BACKEND_HOST);
    }
    ncore_comm_destroy(comm);
  }
  snprintf(t->message, sizeof t->message, "%s", ncore_last_error_message());
  return NULL;
}

MR_TEST(ranks_as_threads_of_one_process) {
  /* The host backend's ranks may be threads: rank 0 of the test starts
   * nranks threads that each join one communicator from the same id. */
  if (rank != 0) return;
  if (!harness_is_host()) SKIP("host backend only (threads share one device)");
  thread_rank_t t[16];
  pthread_t th[16];
  int n = nranks > 16 ? 16 : nranks;
  for (int r = 0; r < n; r++) {
    t[r] = (thread_rank_t){id, r, n, NCORE_OK, 0, ""};
    CHECK_EQ(pthread_create(&th[r], NULL, thread_rank_main, &t[r]), 0);
  }
  for (int r = 0; r < n; r++) pthread_join(th[r], NULL);
  for (int r = 0; r < n; r++) {
    if (t[r].status != NCORE_OK) {
      harness_fail(__FILE__, __LINE__, "thread rank %d: %s (\"%s\")", r,
                   ncore_status_string(t[r].status), t[r].message);
      return;
    }
    CHECK_EQ(t[r].sum, (int64_t)n * (n + 1) / 2);
  }
}

HARNESS_MAIN
