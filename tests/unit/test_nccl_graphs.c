/* The NCCL backend and CUDA graphs, against the test doubles of
 * tests/fake_nccl, whose driver records what a stream being captured
 * receives and runs it again at each launch of the graph, and fails (and
 * invalidates the capture, as CUDA does) what CUDA forbids on a capturing
 * stream. What the test shows, without a GPU: no ncore call ends a capture
 * by a query or a synchronisation of its stream (the copies' stream check,
 * the wait before a window goes); the calls that cannot be replayed
 * (synchronize, and the signal modes whose counts the host keeps) are
 * refused with NCORE_ERR_INVALID_USAGE naming the call, leaving the capture
 * as it was; and the default one-sided modes replay right, every replay
 * waiting for new signals, mixed with eager calls. tests/gpu/graph_test.cu
 * checks the same on GPUs, with NCCL's collectives and peers.
 * tests/fake_nccl/run.sh runs it against each NCCL version; run any other
 * way it skips, saying why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "unit_comm.h"

/* The driver's graph calls, as the stand-in driver exports them (the real
 * driver's names and signatures; handles as pointers), and its count of a
 * graph's operations. */
static struct {
  int (*begin_capture)(void *stream, int mode);
  int (*end_capture)(void *stream, void **graph);
  int (*is_capturing)(void *stream, int *status);
  int (*instantiate)(void **exec, void *graph, unsigned long long flags);
  int (*launch)(void *exec, void *stream);
  int (*exec_destroy)(void *exec);
  int (*graph_destroy)(void *graph);
  long long (*nodes)(void *graph);
} cu;

#define CAPTURE_STATUS_ACTIVE 1   /* CU_STREAM_CAPTURE_STATUS_ACTIVE */
#define CAPTURE_MODE_GLOBAL 0     /* CU_STREAM_CAPTURE_MODE_GLOBAL, CUDA's default */

/* Skips unless on the test doubles; finds the driver's graph calls. */
#define REQUIRE_FAKE_GRAPHS()                                      \
  do {                                                             \
    REQUIRE_FAKE();                                                \
    load_graph_calls();                                            \
    if (harness_failed()) return;                                  \
  } while (0)

static void load_graph_calls(void) {
  *(void **)&cu.begin_capture = driver_symbol("cuStreamBeginCapture_v2");
  *(void **)&cu.end_capture = driver_symbol("cuStreamEndCapture");
  *(void **)&cu.is_capturing = driver_symbol("cuStreamIsCapturing");
  *(void **)&cu.instantiate = driver_symbol("cuGraphInstantiateWithFlags");
  *(void **)&cu.launch = driver_symbol("cuGraphLaunch");
  *(void **)&cu.exec_destroy = driver_symbol("cuGraphExecDestroy");
  *(void **)&cu.graph_destroy = driver_symbol("cuGraphDestroy");
  *(void **)&cu.nodes = driver_symbol("fake_cuda_graph_nodes");
  CHECK(cu.begin_capture && cu.end_capture && cu.is_capturing &&
        cu.instantiate && cu.launch && cu.exec_destroy && cu.graph_destroy &&
        cu.nodes);
}

/* 1 while stream's capture is active (neither ended nor invalidated). */
static int capture_active(ncore_stream_t stream) {
  int status = -1;
  return cu.is_capturing(stream, &status) == 0 &&
         status == CAPTURE_STATUS_ACTIVE;
}

/* Ends the capture on stream: its graph, or NULL when the capture had been
 * invalidated (what CUDA forbids on a capturing stream was done). */
static void *end_capture(ncore_stream_t stream) {
  void *graph = NULL;
  return cu.end_capture(stream, &graph) == 0 ? graph : NULL;
}

/* Ends the capture on stream, which must have stayed valid and taken
 * `nodes` operations, and drops its graph. */
static void capture_ends_with(ncore_stream_t stream, long long nodes) {
  CHECK(capture_active(stream));
  void *graph = end_capture(stream);
  CHECK(graph != NULL); /* the capture was not invalidated */
  CHECK_EQ(cu.nodes(graph), nodes);
  cu.graph_destroy(graph);
}

/* Launches graph on stream once: the driver's result (0: success). */
static int launch(void *graph, ncore_stream_t stream) {
  void *exec = NULL;
  int result = cu.instantiate(&exec, graph, 0);
  if (result != 0) return result;
  result = cu.launch(exec, stream);
  cu.exec_destroy(exec);
  return result;
}

/* A one-rank communicator made under the one-sided modes given (NULL: the
 * default), which it reads when it is made; the environment is put back. */
static ncore_status_t comm_in_modes(ncore_comm_t *comm, const char *signal_mode,
                                    const char *wait_mode, int copy_engine) {
  const char *names[] = {"NCORE_NCCL_SIGNAL_MODE", "NCORE_NCCL_WAIT",
                         "NCORE_NCCL_PUT_KERNEL_MAX", "NCORE_NCCL_PUT_SM_MAX"};
  const char *values[] = {signal_mode, wait_mode, copy_engine ? "0" : NULL,
                          copy_engine ? "0" : NULL};
  char *saved[4];
  for (int i = 0; i < 4; i++) {
    const char *old = getenv(names[i]);
    saved[i] = old ? strdup(old) : NULL;
    if (values[i]) setenv(names[i], values[i], 1);
    else unsetenv(names[i]);
  }
  ncore_status_t status = unit_comm1(comm, NULL);
  for (int i = 0; i < 4; i++) {
    if (saved[i]) setenv(names[i], saved[i], 1);
    else unsetenv(names[i]);
    free(saved[i]);
  }
  return status;
}

/* A one-rank communicator in the modes given (comm_in_modes), a window
 * over 4 KiB of its memory and a stream: what the one-sided tests share. */
typedef struct one_sided {
  ncore_comm_t comm;
  void *mem;
  ncore_window_t w;
  ncore_stream_t stream;
} one_sided_t;

static void one_sided_open(one_sided_t *o, const char *signal_mode,
                           const char *wait_mode) {
  CHECK_OK(comm_in_modes(&o->comm, signal_mode, wait_mode, 0));
  CHECK_OK(ncore_mem_alloc(&o->mem, 4096, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_register_window(&o->w, o->comm, o->mem, 4096,
                                 NCORE_WINDOW_DEFAULT));
  CHECK_OK(ncore_stream_create(&o->stream, NCORE_BACKEND_NCCL));
}

/* Releases what one_sided_open made (the window already closed or not). */
static void one_sided_close(one_sided_t *o) {
  CHECK_OK(ncore_window_close(o->w)); /* idempotent */
  CHECK_OK(ncore_comm_destroy(o->comm));
  CHECK_OK(ncore_stream_destroy(o->stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_mem_free(o->mem, NCORE_BACKEND_NCCL));
}

static ncore_wait_signal_desc_t from_self(uint32_t count) {
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = 0;
  d.op_count = count;
  return d;
}

/* Before: the stream check of calls without a communicator asked
 * cuStreamQuery, which ends a capture with an error, so an ncore_memcpy
 * into a graph broke the capture of a stream not checked before. */
TEST(copies_leave_the_capture_capturing) {
  REQUIRE_FAKE_GRAPHS();
  unsigned char *mem = NULL;
  CHECK_OK(ncore_mem_alloc((void **)&mem, 64, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_memset(mem, 0, 64, NULL, NCORE_BACKEND_NCCL));
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, NCORE_BACKEND_NCCL));
  CHECK_EQ(cu.begin_capture(stream, CAPTURE_MODE_GLOBAL), 0);
  CHECK_OK(ncore_memset(mem, 7, 16, stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_memcpy(mem + 16, mem, 16, NCORE_MEMCPY_DEVICE_TO_DEVICE,
                        stream, NCORE_BACKEND_NCCL));
  CHECK(capture_active(stream));
  void *graph = end_capture(stream);
  CHECK(graph != NULL); /* the capture was not invalidated */
  CHECK_EQ(cu.nodes(graph), 2LL);
  CHECK_EQ(mem[0] + mem[16], 0); /* captured, not run */
  CHECK_EQ(launch(graph, stream), 0);
  CHECK_EQ(mem[0], 7);
  CHECK_EQ(mem[31], 7);
  cu.graph_destroy(graph);
  CHECK_OK(ncore_stream_destroy(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* A synchronisation of a capturing stream would end the capture with an
 * error (its work runs only when the graph is launched): refused, naming
 * the call, and the capture goes on. */
TEST(synchronize_is_refused_while_the_stream_is_captured) {
  REQUIRE_FAKE_GRAPHS();
  UNIT_COMM(comm);
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, NCORE_BACKEND_NCCL));
  CHECK_EQ(cu.begin_capture(stream, CAPTURE_MODE_GLOBAL), 0);
  CHECK_STATUS(ncore_stream_synchronize(stream, NCORE_BACKEND_NCCL),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("ncore_stream_synchronize: stream: ");
  CHECK_MESSAGE_CONTAINS("is being captured into a CUDA graph");
  CHECK_STATUS(ncore_comm_synchronize(comm, stream), NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("ncore_comm_synchronize: stream: ");
  capture_ends_with(stream, 0);
  /* Once the capture ended, both wait as before. */
  CHECK_OK(ncore_stream_synchronize(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_comm_synchronize(comm, stream));
  CHECK_OK(ncore_stream_destroy(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_comm_destroy(comm));
}

/* NCORE_NCCL_SIGNAL_MODE=write stores the host's count, NCORE_NCCL_WAIT=
 * stream and hybrid wait for one: a replay would repeat the value. Those
 * calls are refused while their stream is captured, before anything is
 * enqueued, and the counts stay right for the eager calls after. */
TEST(modes_with_host_counts_are_refused_while_captured) {
  REQUIRE_FAKE_GRAPHS();
  one_sided_t o = {0};
  one_sided_open(&o, "write", "stream");
  if (harness_failed()) return;
  ncore_wait_signal_desc_t one = from_self(1);
  CHECK_EQ(cu.begin_capture(o.stream, CAPTURE_MODE_GLOBAL), 0);
  CHECK_STATUS(ncore_signal(o.comm, 0, 0, 0, 0, o.stream), NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("ncore_signal: stream: ");
  CHECK_MESSAGE_CONTAINS("NCORE_NCCL_SIGNAL_MODE=write");
  CHECK_STATUS(ncore_put_signal(o.comm, (char *)o.mem + 64, 8, NCORE_UINT8, 0,
                                o.w, 0, 0, 0, 0, o.stream),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("ncore_put_signal: stream: ");
  CHECK_STATUS(ncore_wait_signal(o.comm, &one, 1, o.stream),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("ncore_wait_signal: stream: ");
  CHECK_MESSAGE_CONTAINS("NCORE_NCCL_WAIT=stream and hybrid");
  capture_ends_with(o.stream, 0); /* nothing was enqueued */
  /* The refused calls counted nothing: a signal and its wait still meet. */
  CHECK_OK(ncore_signal(o.comm, 0, 0, 0, 0, o.stream));
  CHECK_OK(ncore_wait_signal(o.comm, &one, 1, o.stream));
  one_sided_close(&o);
  /* hybrid: the signal (the default add) is captured, the wait refused. */
  one_sided_open(&o, NULL, "hybrid");
  if (harness_failed()) return;
  CHECK_EQ(cu.begin_capture(o.stream, CAPTURE_MODE_GLOBAL), 0);
  CHECK_OK(ncore_signal(o.comm, 0, 0, 0, 0, o.stream));
  CHECK_STATUS(ncore_wait_signal(o.comm, &one, 1, o.stream),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("NCORE_NCCL_WAIT=stream and hybrid");
  capture_ends_with(o.stream, 1);
  one_sided_close(&o);
}

/* The default modes keep no count on the host: a graph of put_signal and
 * wait_signal replayed N times moves the data and takes new signals each
 * time, eager calls before and after count with it, and a graph of one
 * wait waits for a new signal at each launch (with a count baked in, its
 * second launch would not wait). copy_engine: puts by cuMemcpyAsync and the
 * signal kernel instead of the fused kernel. */
static void replay_puts_and_waits(int copy_engine) {
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(comm_in_modes(&comm, NULL, NULL, copy_engine));
  enum { K = 3, REPLAYS = 4, BYTES = 8 };
  uint64_t *window_mem = NULL, *source = NULL;
  CHECK_OK(ncore_mem_alloc((void **)&window_mem, 4096, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_mem_alloc((void **)&source, K * BYTES, NCORE_BACKEND_NCCL));
  ncore_window_t w = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_register_window(&w, comm, window_mem, 4096,
                                 NCORE_WINDOW_DEFAULT));
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, NCORE_BACKEND_NCCL));
  /* An eager signal and wait first: the graph starts from a count of 1. */
  ncore_wait_signal_desc_t one = from_self(1), all = from_self(K);
  CHECK_OK(ncore_signal(comm, 0, 0, 0, 0, stream));
  CHECK_OK(ncore_wait_signal(comm, &one, 1, stream));
  CHECK_EQ(cu.begin_capture(stream, CAPTURE_MODE_GLOBAL), 0);
  for (int i = 0; i < K; i++)
    CHECK_OK(ncore_put_signal(comm, source + i, 1, NCORE_UINT64, 0, w, i, 0, 0,
                              0, stream));
  CHECK_OK(ncore_wait_signal(comm, &all, 1, stream));
  void *graph = end_capture(stream);
  CHECK(graph != NULL);
  CHECK_EQ(cu.nodes(graph), copy_engine ? 2LL * K + 1 : K + 1LL);
  for (int replay = 0; replay < REPLAYS; replay++) {
    for (int i = 0; i < K; i++) source[i] = 1000u * (unsigned)replay + (unsigned)i;
    CHECK_EQ(launch(graph, stream), 0);
    for (int i = 0; i < K; i++)
      CHECK_EQ(window_mem[i], 1000u * (uint64_t)replay + (uint64_t)i);
  }
  cu.graph_destroy(graph);
  /* Eager again, after REPLAYS * K signals the graph sent and consumed. */
  CHECK_OK(ncore_signal(comm, 0, 0, 0, 0, stream));
  CHECK_OK(ncore_wait_signal(comm, &one, 1, stream));
  /* A graph of one wait: one eager signal lets one launch through. */
  CHECK_EQ(cu.begin_capture(stream, CAPTURE_MODE_GLOBAL), 0);
  CHECK_OK(ncore_wait_signal(comm, &one, 1, stream));
  graph = end_capture(stream);
  CHECK(graph != NULL);
  CHECK_EQ(cu.nodes(graph), 1LL);
  CHECK_OK(ncore_signal(comm, 0, 0, 0, 0, stream));
  CHECK_EQ(launch(graph, stream), 0);
  /* No signal since: the stand-in driver reports the wait that would
   * wait (a GPU would wait there for the next signal). */
  CHECK(launch(graph, stream) != 0);
  cu.graph_destroy(graph);
  CHECK_OK(ncore_window_close(w));
  CHECK_OK(ncore_comm_abort(comm)); /* its last wait never got its signal */
  CHECK_OK(ncore_stream_destroy(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_mem_free(source, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_mem_free(window_mem, NCORE_BACKEND_NCCL));
}

TEST(default_modes_replay_with_the_counts_on_the_gpu) {
  REQUIRE_FAKE_GRAPHS();
  replay_puts_and_waits(0);
}

TEST(copy_engine_puts_replay_with_the_counts_on_the_gpu) {
  REQUIRE_FAKE_GRAPHS();
  replay_puts_and_waits(1);
}

/* Closing a window waits for the streams that carried ncore's puts
 * through it. One of them being captured now is skipped (an event recorded
 * there marks nothing that runs now, and querying it would end the
 * capture); before, the close ended the capture with an error. */
TEST(window_close_leaves_a_capture_capturing) {
  REQUIRE_FAKE_GRAPHS();
  one_sided_t o = {0};
  one_sided_open(&o, NULL, NULL);
  if (harness_failed()) return;
  CHECK_OK(ncore_put_signal(o.comm, (char *)o.mem + 64, 8, NCORE_UINT8, 0, o.w,
                            0, 0, 0, 0, o.stream));
  ncore_wait_signal_desc_t one = from_self(1);
  CHECK_OK(ncore_wait_signal(o.comm, &one, 1, o.stream));
  CHECK_EQ(cu.begin_capture(o.stream, CAPTURE_MODE_GLOBAL), 0);
  CHECK_OK(ncore_window_close(o.w));
  capture_ends_with(o.stream, 0);
  one_sided_close(&o);
}

/* A stream that carried ncore's puts, destroyed through ncore before the
 * window closes (the conformance runners release their capture stream
 * before the case's communicator): the close waits for an event recorded
 * at the stream's end and never names the destroyed handle again. Before,
 * the close recorded an event on the freed stream: a crash on GPUs
 * (cuda_graph_replay in C, Python and Go). */
TEST(window_close_after_its_stream_was_destroyed) {
  REQUIRE_FAKE_GRAPHS();
  one_sided_t o = {0};
  one_sided_open(&o, NULL, NULL);
  if (harness_failed()) return;
  CHECK_OK(ncore_put_signal(o.comm, (char *)o.mem + 64, 8, NCORE_UINT8, 0, o.w,
                            0, 0, 0, 0, o.stream));
  long long uses = driver_count("destroyed stream");
  long long queries = driver_count("cuEventQuery");
  CHECK_OK(ncore_stream_destroy(o.stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_window_close(o.w));
  CHECK_EQ(driver_count("destroyed stream"), uses);
  CHECK(driver_count("cuEventQuery") > queries); /* the event was waited for */
  CHECK_OK(ncore_stream_create(&o.stream, NCORE_BACKEND_NCCL));
  one_sided_close(&o);
  CHECK_EQ(driver_count("destroyed stream"), uses);
}

HARNESS_MAIN
