/* core — the debug log (core/log.h). Configured once per process from
 * NCORE_DEBUG (WARN or INFO, any case; anything else is off, said once on
 * stderr) and NCORE_DEBUG_FILE (a path where %h is the host name, %p the
 * process id and %% a percent sign, as NCCL_DEBUG_FILE; stderr when unset or
 * when the file cannot be opened, which is said there). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "log.h"

#include <dlfcn.h>
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

#include <ncore.h>

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

static _Atomic int log_rank = -1;

/* Writes one line to the log's stream (stderr when the log is off),
 * unless it repeats the previous one. */
static void log_line(core_log_level_t level, const char *message);

/* The log's first line: which ncore this process runs, and from where. */
static void log_first_line(void) {
  Dl_info self;
  const char *file = dladdr((void *)&log_first_line, &self) != 0 &&
                             self.dli_fname != NULL
                         ? self.dli_fname : "?";
  char message[1280];
  snprintf(message, sizeof message, "ncore %s (ABI %u) from %s; the host "
           "backend is built in, the NCCL backend names its libnccl when it "
           "loads", ncore_version_string(), (unsigned)ncore_abi_version(),
           file);
  log_line(CORE_LOG_INFO, message);
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
  log_first_line();
}

int core_log_enabled(core_log_level_t level) {
  pthread_once(&log_once, log_configure);
  return level != CORE_LOG_OFF && level <= log_level;
}

void core_log_set_rank(int rank) { atomic_store(&log_rank, rank); }

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
  core_wait_note_start_at(note, call, core_log_now_ms());
}

void core_wait_note_start_at(core_wait_note_t *note, const char *call,
                             long long start_ms) {
  note->call = call;
  note->start_ms = start_ms;
  note->warned = 0;
}

int core_wait_note_due(const core_wait_note_t *note) {
  if (note->warned) return 0;
  pthread_once(&warn_once, warn_configure);
  return warn_after_ms > 0 && core_log_now_ms() - note->start_ms >= warn_after_ms;
}

long long core_wait_warn_after_ms(void) {
  pthread_once(&warn_once, warn_configure);
  return warn_after_ms;
}

void core_wait_note_say(const char *call, long long waited_ms,
                        const char *awaited, const char *left) {
  char message[1280];
  snprintf(message, sizeof message, "%s has waited %.1f s for %s (%s; "
           "NCORE_WAIT_WARN_S=0 silences this)", call,
           (double)waited_ms / 1000.0, awaited, left);
  pthread_once(&log_once, log_configure);
  log_line(CORE_LOG_WARN, message);
}

void core_wait_note_check(core_wait_note_t *note, long long deadline_ms,
                          const char *fmt, ...) {
  if (!core_wait_note_due(note)) return;
  long long now = core_log_now_ms();
  note->warned = 1;
  char awaited[768], left[64];
  va_list args;
  va_start(args, fmt);
  vsnprintf(awaited, sizeof awaited, fmt, args);
  va_end(args);
  if (deadline_ms < 0)
    snprintf(left, sizeof left, "no timeout set");
  else
    snprintf(left, sizeof left, "%.1f s left before the timeout",
             (double)(deadline_ms > now ? deadline_ms - now : 0) / 1000.0);
  core_wait_note_say(note->call, now - note->start_ms, awaited, left);
}

/* The previous line (level and message) and how often it came again since
 * it, or the last count of it, was written; when that was. */
static pthread_mutex_t lines_lock = PTHREAD_MUTEX_INITIALIZER;
static core_log_level_t previous_level = CORE_LOG_OFF;
static char previous_message[1280];
static unsigned long long previous_repeats;
static long long previous_said_ms;

/* How long a run of repeats goes unsaid at most. */
#define REPEATS_SAID_EVERY_MS 10000

static const char *level_name(core_log_level_t level) {
  return level == CORE_LOG_WARN ? "WARN" : "INFO";
}

/* "<date> <time> <host>:<pid>:<tid> [<rank>]" into out. */
static void line_prefix(char *out, size_t cap) {
  struct timespec now;
  struct tm local;
  char when[32] = "?";
  clock_gettime(CLOCK_REALTIME, &now);
  if (localtime_r(&now.tv_sec, &local) != NULL)
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
  /* The rank as the launcher gave it: known before any communicator, and
   * the same in every line of this process. */
  const char *rank = getenv("NCORE_RANK");
  char launched[16];
  int known = atomic_load(&log_rank);
  if ((rank == NULL || rank[0] == '\0') && known >= 0) {
    snprintf(launched, sizeof launched, "%d", known);
    rank = launched;
  }
  snprintf(out, cap, "%s.%03ld %s:%ld:%ld [%s]", when, now.tv_nsec / 1000000,
           log_host, (long)getpid(), (long)syscall(SYS_gettid),
           rank != NULL && rank[0] != '\0' ? rank : "-");
}

/* Says how often the previous line repeated (lines_lock held). */
static void say_repeats(FILE *stream, const char *prefix, long long now) {
  fprintf(stream, "%s NCORE %s (previous line repeated %llu times)\n", prefix,
          level_name(previous_level), previous_repeats);
  previous_repeats = 0;
  previous_said_ms = now;
}

static void log_line(core_log_level_t level, const char *message) {
  FILE *stream = log_stream != NULL ? log_stream : stderr;
  char prefix[160];
  line_prefix(prefix, sizeof prefix);
  long long now = core_log_now_ms();
  /* One lock for the comparison and the write: threads' lines stay whole
   * and a repeat is counted against the line written just before it. */
  pthread_mutex_lock(&lines_lock);
  if (level == previous_level && strcmp(message, previous_message) == 0) {
    previous_repeats++;
    if (now - previous_said_ms >= REPEATS_SAID_EVERY_MS)
      say_repeats(stream, prefix, now);
  } else {
    if (previous_repeats > 0) say_repeats(stream, prefix, now);
    fprintf(stream, "%s NCORE %s %s\n", prefix, level_name(level), message);
    previous_level = level;
    snprintf(previous_message, sizeof previous_message, "%s", message);
    previous_said_ms = now;
  }
  pthread_mutex_unlock(&lines_lock);
}

/* A run of repeats still unsaid when the process exits is said then. */
__attribute__((destructor)) static void log_say_last_repeats(void) {
  if (pthread_mutex_trylock(&lines_lock) != 0) return;
  if (previous_repeats > 0) {
    char prefix[160];
    line_prefix(prefix, sizeof prefix);
    say_repeats(log_stream != NULL ? log_stream : stderr, prefix,
                core_log_now_ms());
  }
  pthread_mutex_unlock(&lines_lock);
}
