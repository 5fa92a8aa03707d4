/* core — what every call reads and writes of its thread's state, in one
 * thread-local of one cache line: a call then touches one line and one TLS
 * descriptor for all of it, where separate thread-locals of the files
 * below cost a line each (and a descriptor's line) after NCCL's enqueue
 * evicted them (bench/gpu/entry_cost_profile.py). Each field belongs to
 * the file named beside it, which alone reads and writes it; state that a
 * call does not read every time stays in that file's own thread-locals. */
#ifndef NCORE_CORE_THREAD_STATE_H
#define NCORE_CORE_THREAD_STATE_H

#include <sys/types.h>

#include <ncore.h>

struct core_wait_watch;

typedef struct core_thread_state {
  /* error.c: the running call's recorded status and its public name
   * ("ncore" before any call). */
  _Alignas(64) ncore_status_t error_status;
  const char *error_function;
  /* group.c: ncore_group_start nesting. */
  int group_depth;
  /* nccl/group.c: the NCCL backend's group nesting, and how many contexts
   * wait for its end (its group_joins). */
  int nccl_group_depth;
  int nccl_group_join_count;
  /* wait_watch.c: this thread's watch slot, NULL until its first watched
   * call. */
  struct core_wait_watch *watch;
  /* nccl/stream.c: the last stream checked on this thread and its
   * context (CUstream, CUcontext). */
  void *nccl_known_stream, *nccl_known_context;
  /* process.c: this process's id, 0 until the thread's first call. */
  pid_t process_id;
} core_thread_state_t;

/* This thread's (thread_state.c). Hidden and local-dynamic: the library's
 * own, reached through the module's TLS block, with no dynamic symbol. */
extern _Thread_local core_thread_state_t core_thread
    __attribute__((visibility("hidden"), tls_model("local-dynamic")));

#endif
