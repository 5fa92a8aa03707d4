/* core — the debug log (core/log.h). Configured once per process from
 * NCORE_DEBUG (WARN or INFO, any case; anything else is off, said once on
 * stderr) and NCORE_DEBUG_FILE (a path where %h is the host name, %p the
 * process id and %% a percent sign, as NCCL_DEBUG_FILE; stderr when unset or
 * when the file cannot be opened, which is said there). */
#include "log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static core_log_level_t log_level = CORE_LOG_OFF;
static FILE *log_stream = NULL;
static char log_host[64] = "?";

/* Expands NCORE_DEBUG_FILE's %h / %p / %% into out. */
static void expand_path(const char *pattern, char *out, size_t cap) {
  size_t used = 0;
  for (const char *p = pattern; *p != '\0' && used + 1 < cap; p++) {
    int n = 0;
    if (p[0] == '%' && p[1] == 'h') {
      n = snprintf(out + used, cap - used, "%s", log_host);
      p++;
    } else if (p[0] == '%' && p[1] == 'p') {
      n = snprintf(out + used, cap - used, "%ld", (long)getpid());
      p++;
    } else if (p[0] == '%' && p[1] == '%') {
      out[used] = '%';
      n = 1;
      p++;
    } else {
      out[used] = *p;
      n = 1;
    }
    if (n < 0) break;
    used += (size_t)n < cap - used ? (size_t)n : cap - used - 1;
  }
  out[used] = '\0';
}

static void log_configure(void) {
  /* The host names every line, the WARN lines of waits too (log off). */
  gethostname(log_host, sizeof log_host - 1);
  char *dot = strchr(log_host, '.');
  if (dot != NULL) *dot = '\0';
  const char *level = getenv("NCORE_DEBUG");
  if (level == NULL || level[0] == '\0') return;
  if (strcasecmp(level, "WARN") == 0) {
    log_level = CORE_LOG_WARN;
  } else if (strcasecmp(level, "INFO") == 0) {
    log_level = CORE_LOG_INFO;
  } else {
    fprintf(stderr, "ncore: NCORE_DEBUG=\"%s\" is not WARN or INFO; the debug "
                    "log stays off\n", level);
    return;
  }
  log_stream = stderr;
  const char *file = getenv("NCORE_DEBUG_FILE");
  if (file != NULL && file[0] != '\0') {
    char path[4096];
    expand_path(file, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
      setvbuf(f, NULL, _IOLBF, 0);
      log_stream = f;
    } else {
      fprintf(stderr, "ncore: NCORE_DEBUG_FILE: cannot open %s; logging to "
                      "stderr\n", path);
    }
  }
}

int core_log_enabled(core_log_level_t level) {
  pthread_once(&log_once, log_configure);
  return level != CORE_LOG_OFF && level <= log_level;
}

static _Atomic int log_rank = -1;

void core_log_set_rank(int rank) { atomic_store(&log_rank, rank); }

/* Writes one formatted line to the log's stream (stderr when the log is
 * off). */
static void log_line(core_log_level_t level, const char *message);

void core_log(core_log_level_t level, const char *fmt, ...) {
  if (!core_log_enabled(level)) return;
  char message[1280];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  log_line(level, message);
}

long long core_log_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* NCORE_WAIT_WARN_S in ms: 10 s unless set; 0 (or a negative or malformed
 * value, said once) turns the lines off. */
static long long warn_after_ms = -1;
static pthread_once_t warn_once = PTHREAD_ONCE_INIT;

static void warn_configure(void) {
  warn_after_ms = 10000;
  const char *text = getenv("NCORE_WAIT_WARN_S");
  if (text == NULL || text[0] == '\0') return;
  char *end = NULL;
  double seconds = strtod(text, &end);
  if (*end != '\0' || !(seconds >= 0) || seconds > 1e9) {
    fprintf(stderr, "ncore: NCORE_WAIT_WARN_S=\"%s\" is not a number of "
                    "seconds; waits warn after 10 s\n", text);
    return;
  }
  warn_after_ms = (long long)(seconds * 1000);
}

void core_wait_note_start(core_wait_note_t *note, const char *call) {
  note->call = call;
  note->start_ms = core_log_now_ms();
  note->warned = 0;
}

void core_wait_note_check(core_wait_note_t *note, long long deadline_ms,
                          const char *fmt, ...) {
  if (note->warned) return;
  pthread_once(&warn_once, warn_configure);
  long long now = core_log_now_ms();
  if (warn_after_ms <= 0 || now - note->start_ms < warn_after_ms) return;
  note->warned = 1;
  char awaited[768], message[1280], left[64];
  va_list args;
  va_start(args, fmt);
  vsnprintf(awaited, sizeof awaited, fmt, args);
  va_end(args);
  if (deadline_ms < 0)
    snprintf(left, sizeof left, "no timeout set");
  else
    snprintf(left, sizeof left, "%.1f s left before the timeout",
             (double)(deadline_ms > now ? deadline_ms - now : 0) / 1000.0);
  snprintf(message, sizeof message, "%s has waited %.1f s for %s (%s; "
           "NCORE_WAIT_WARN_S=0 silences this)", note->call,
           (double)(now - note->start_ms) / 1000.0, awaited, left);
  pthread_once(&log_once, log_configure);
  log_line(CORE_LOG_WARN, message);
}

static void log_line(core_log_level_t level, const char *message) {
  FILE *stream = log_stream != NULL ? log_stream : stderr;
  /* The rank as the launcher gave it: known before any communicator, and
   * the same in every line of this process. */
  const char *rank = getenv("NCORE_RANK");
  char launched[16];
  int known = atomic_load(&log_rank);
  if ((rank == NULL || rank[0] == '\0') && known >= 0) {
    snprintf(launched, sizeof launched, "%d", known);
    rank = launched;
  }
  /* One fprintf per line: stdio's lock keeps threads' lines whole. */
  fprintf(stream, "%s:%ld:%ld [%s] NCORE %s %s\n", log_host,
          (long)getpid(), (long)syscall(SYS_gettid),
          rank != NULL && rank[0] != '\0' ? rank : "-",
          level == CORE_LOG_WARN ? "WARN" : "INFO", message);
}
