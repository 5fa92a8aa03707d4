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

/* The thread's watched call, between enter and leave (wait_watch.c). */
typedef struct core_wait_watch core_wait_watch_t;

/* This thread enters `inside` (a string that outlives the call: "NCCL's
 * ncclRecv") on behalf of the current entry point (core_error_call), with
 * peer (>= 0) or none (-1), as rank `rank` of `nranks`. Calls do not nest:
 * enter, the library call, leave. Returns what core_wait_watch_leave
 * takes: the thread's slot, or NULL when nothing is watched
 * (NCORE_WAIT_WARN_S is 0, or no watcher can be had: out of threads, then
 * no line). */
core_wait_watch_t *core_wait_watch_enter(const char *inside, int peer,
                                         int rank, int nranks);

/* This thread left the call it entered; entered: what enter returned
 * (passed on, so that leaving reads no thread-local after the library
 * call; NULL: nothing to do). */
void core_wait_watch_leave(core_wait_watch_t *entered);

#endif
