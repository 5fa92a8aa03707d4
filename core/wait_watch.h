/* core — waits inside a library call ncore cannot see into. NCCL, for one,
 * sets up its connection to a peer inside the first send, recv or
 * collective that needs it, and that call returns only once the peer made
 * its matching call: a rank whose peer never comes waits there, with no
 * loop of ncore's to write a note (log.h). A watcher thread writes the
 * note instead: a call that stays inside the library NCORE_WAIT_WARN_S
 * seconds gets the same one WARN line, naming the entry point, the library
 * call and the peer. The hot path is two stores; the thread starts with
 * the first watched call of the process (again after fork) and wakes ten
 * times a second. */
#ifndef NCORE_CORE_WAIT_WATCH_H
#define NCORE_CORE_WAIT_WATCH_H

#include <stdatomic.h>

#include "error.h"
#include "thread_state.h"

/* One slot per thread that made a watched call (threads that end give
 * theirs back; wait_watch.c). seq is odd while the thread is inside a
 * call; the other fields describe that call and are written before seq
 * says so. In the header so that enter and leave are inline. */
typedef struct core_wait_watch {
  _Atomic unsigned long seq;
  _Atomic(const char *) call;
  _Atomic(const char *) inside;
  atomic_int peer, rank, nranks;
  atomic_int in_use;
  /* The watcher's own: the seq it saw inside, since when, said or not. */
  unsigned long seen_seq;
  long long seen_since_ms;
  int said;
} core_wait_watch_t;

/* The thread's first watched call: claims its slot (and starts the
 * watcher) into core_thread.watch, NULL when nothing is watched (see
 * core_wait_watch_enter). */
core_wait_watch_t *core_wait_watch_claim(void);

/* This thread enters `inside` (a string that outlives the call: "NCCL's
 * ncclRecv") on behalf of the current entry point (core_error_call), with
 * peer (>= 0) or none (-1), as rank `rank` of `nranks`. Calls do not nest:
 * enter, the library call, leave. Returns what core_wait_watch_leave
 * takes: the thread's slot, or NULL when nothing is watched
 * (NCORE_WAIT_WARN_S is 0, or no watcher can be had: out of threads, then
 * no line). */
static inline core_wait_watch_t *core_wait_watch_enter(const char *inside,
                                                      int peer, int rank,
                                                      int nranks) {
  core_wait_watch_t *s = core_thread.watch;
  if (s == NULL && (s = core_wait_watch_claim()) == NULL) return NULL;
  atomic_store_explicit(&s->call, core_error_call(), memory_order_relaxed);
  atomic_store_explicit(&s->inside, inside, memory_order_relaxed);
  atomic_store_explicit(&s->peer, peer, memory_order_relaxed);
  atomic_store_explicit(&s->rank, rank, memory_order_relaxed);
  atomic_store_explicit(&s->nranks, nranks, memory_order_relaxed);
  unsigned long seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
  atomic_store_explicit(&s->seq, seq | 1, memory_order_release);
  return s;
}

/* This thread left the call it entered; entered: what enter returned
 * (passed on, so that leaving reads no thread-local after the library
 * call; NULL: nothing to do). */
static inline void core_wait_watch_leave(core_wait_watch_t *entered) {
  if (entered == NULL) return;
  unsigned long seq = atomic_load_explicit(&entered->seq, memory_order_relaxed);
  if (seq & 1)
    atomic_store_explicit(&entered->seq, seq + 1, memory_order_release);
}

#endif
