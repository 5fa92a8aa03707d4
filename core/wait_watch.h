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

/* This thread enters `inside` (a string that outlives the call: "NCCL's
 * ncclRecv") on behalf of the current entry point (core_error_call), with
 * peer (>= 0) or none (-1), as rank `rank` of `nranks`. Calls do not nest:
 * enter, the library call, leave. Nothing happens when NCORE_WAIT_WARN_S
 * is 0, or when no watcher can be had (out of threads: then no line). */
void core_wait_watch_enter(const char *inside, int peer, int rank, int nranks);

/* This thread left the call it entered. */
void core_wait_watch_leave(void);

#endif
