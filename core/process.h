/* core — which process this is. A communicator belongs to the process that
 * created it; a child made by fork() inherits a copy of its memory (handles,
 * backend state) but is not a rank, and must neither use the copy nor speak
 * for its parent to the peers (a Python data-loader worker forks after
 * init). */
#ifndef NCORE_CORE_PROCESS_H
#define NCORE_CORE_PROCESS_H

#include <sys/types.h>

#include "thread_state.h"

/* Caches this process's id in the calling thread's state (the first call
 * on a thread, and registers the fork handler once) and returns it. */
pid_t core_process_id_first(void);

/* This process's id, cached per thread in core_thread (thread_state.h:
 * the line every call reads anyway) and renewed in a child after fork()
 * (its only thread is the one that forked), so that every call can
 * compare it with its communicator's creator for free: one load, no call
 * but a thread's first. */
static inline pid_t core_process_id(void) {
  pid_t id = core_thread.process_id;
  return id != 0 ? id : core_process_id_first();
}

#endif
