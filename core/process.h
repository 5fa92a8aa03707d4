/* core — which process this is. A communicator belongs to the process that
 * created it; a child made by fork() inherits a copy of its memory (handles,
 * backend state) but is not a rank, and must neither use the copy nor speak
 * for its parent to the peers (a Python data-loader worker forks after
 * init). */
#ifndef NCORE_CORE_PROCESS_H
#define NCORE_CORE_PROCESS_H

#include <stdatomic.h>
#include <sys/types.h>

/* The cached id: set when the library is loaded and renewed in a child
 * after fork(); 0 only before the library's constructor ran. Read through
 * core_process_id. */
extern atomic_int core_process_cached_id;

/* Caches the id (once) and returns it: core_process_id's first call when
 * it came before the library's constructor (another library's). */
pid_t core_process_id_first(void);

/* This process's id, cached (and renewed in a child after fork()), so that
 * every call can compare it with its communicator's creator for free: one
 * load, no call. */
static inline pid_t core_process_id(void) {
  int id = atomic_load_explicit(&core_process_cached_id, memory_order_relaxed);
  return id != 0 ? (pid_t)id : core_process_id_first();
}

#endif
