/* core — which process this is. A communicator belongs to the process that
 * created it; a child made by fork() inherits a copy of its memory (handles,
 * backend state) but is not a rank, and must neither use the copy nor speak
 * for its parent to the peers (a Python data-loader worker forks after
 * init). */
#ifndef NCORE_CORE_PROCESS_H
#define NCORE_CORE_PROCESS_H

#include <sys/types.h>

/* This process's id, cached (and renewed in a child after fork()), so that
 * every call can compare it with its communicator's creator for free. */
pid_t core_process_id(void);

#endif
