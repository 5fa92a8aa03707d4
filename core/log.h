/* core — the debug log (NCORE_DEBUG, NCORE_DEBUG_FILE), as NCCL's NCCL_DEBUG:
 * off unless asked for, one line per event, per process (each rank is one),
 *   <host>:<pid>:<tid> [<NCORE_RANK>] NCORE <LEVEL> <message>
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

/* One turn of the wait. deadline_ms: CLOCK_MONOTONIC ms at which the wait
 * times out (< 0: none). fmt: printf text naming what is awaited ("rank 2
 * to join", "ranks 1, 3 to fetch the unique id"), formatted only when the
 * line is due. */
void core_wait_note_check(core_wait_note_t *note, long long deadline_ms,
                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
