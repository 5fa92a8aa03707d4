/* core — the debug log (NCORE_DEBUG, NCORE_DEBUG_FILE), as NCCL's NCCL_DEBUG:
 * off unless asked for, one line per event, per process (each rank is one),
 *   <date> <time> <host>:<pid>:<tid> [<NCORE_RANK>] NCORE <LEVEL> <message>
 * (local time to the millisecond: "2026-11-28 02:51:37.123"). The log's
 * first line says which ncore this is (version, ABI, the file it was loaded
 * from); the NCCL backend names its libnccl and version when it loads. A
 * line whose level and message repeat the previous line's is not written
 * again: "(previous line repeated N times)" follows once the run of
 * repeats ends, and every 10 s while it lasts, as syslog does.
 * WARN: what made a call fail for reasons outside the caller's arguments
 * (timeouts, dead or aborted peers, system and CUDA errors) and aborts.
 * INFO: also the backend chosen and why, the libnccl loaded (path,
 * version), each rank's device, and every failed call. */
#ifndef NCORE_CORE_LOG_H
#define NCORE_CORE_LOG_H

typedef enum core_log_level {
  CORE_LOG_OFF = 0,
  CORE_LOG_WARN = 1,
  CORE_LOG_INFO = 2
} core_log_level_t;

/* 1 when messages of level are written (reads the environment once). */
int core_log_enabled(core_log_level_t level);

/* The rank every later line names: the launcher's rank of this process,
 * known once ncore_comm_init_from_env has read it (before: NCORE_RANK, or
 * "-"). */
void core_log_set_rank(int rank);

/* Writes one line at level when enabled; printf-style, no newline needed. */
void core_log(core_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Waits that explain themselves without a debug flag. A loop that may wait
 * long starts a note once, then checks it on every turn; the first check
 * after NCORE_WAIT_WARN_S seconds (default 10; 0 turns it off) writes one
 * WARN line whatever NCORE_DEBUG says, naming the call, what it awaits and
 * the time left before its timeout; the note writes nothing more after. */
typedef struct core_wait_note {
  const char *call;      /* the entry point waiting: "ncore_allreduce" */
  long long start_ms;    /* CLOCK_MONOTONIC */
  int warned;
} core_wait_note_t;

/* CLOCK_MONOTONIC milliseconds, the clock of notes and deadlines. */
long long core_log_now_ms(void);

/* Starts a note for call (a string that outlives the note). */
void core_wait_note_start(core_wait_note_t *note, const char *call);

/* Starts a note for call whose wait began at start_ms (CLOCK_MONOTONIC):
 * for a loop that reads the clock only once it has waited a while. */
void core_wait_note_start_at(core_wait_note_t *note, const char *call,
                             long long start_ms);

/* 1 when the next core_wait_note_check(note, ...) writes its line: a loop
 * whose description of what it awaits costs something (a scan of the
 * ranks) makes it only then. */
int core_wait_note_due(const core_wait_note_t *note);

/* One turn of the wait. deadline_ms: CLOCK_MONOTONIC ms at which the wait
 * times out (< 0: none). fmt: printf text naming what is awaited ("rank 2
 * to join", "ranks 1, 3 to fetch the unique id"), formatted only when the
 * line is due. */
void core_wait_note_check(core_wait_note_t *note, long long deadline_ms,
                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* NCORE_WAIT_WARN_S in milliseconds (<= 0: wait lines are off). */
long long core_wait_warn_after_ms(void);

/* Writes the line a note writes when it is due: call has waited waited_ms
 * for awaited (left: the time left, or why there is no timeout). For a
 * watcher that sees the wait from outside (wait_watch.c). */
void core_wait_note_say(const char *call, long long waited_ms,
                        const char *awaited, const char *left);

#endif
