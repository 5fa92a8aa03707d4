/* core — the watcher of waits inside library calls (wait_watch.h). */
#include "wait_watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "error.h"
#include "log.h"
#include "thread_state.h"

typedef core_wait_watch_t watch_slot_t;

#define WATCH_SLOTS 256
#define WATCH_TICK_MS 100
static watch_slot_t slots[WATCH_SLOTS];
static atomic_int slots_used; /* slots[0 .. slots_used) were ever handed out */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static int watcher_running;
static pthread_key_t slot_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static _Thread_local int no_slot; /* none could be had: do not ask again */

static void give_back(void *slot) { atomic_store(&((watch_slot_t *)slot)->in_use, 0); }

/* A fork() child has no watcher thread: the next watched call starts one. */
static void after_fork_in_child(void) {
  pthread_mutex_init(&watch_lock, NULL);
  watcher_running = 0;
}

static void make_key(void) {
  (void)pthread_key_create(&slot_key, give_back);
  (void)pthread_atfork(NULL, NULL, after_fork_in_child);
}

static void look(watch_slot_t *s, long long now, long long after_ms) {
  unsigned long seq = atomic_load_explicit(&s->seq, memory_order_acquire);
  if ((seq & 1) == 0) return;
  if (seq != s->seen_seq) {
    s->seen_seq = seq;
    s->seen_since_ms = now;
    s->said = 0;
    return;
  }
  if (s->said || now - s->seen_since_ms < after_ms) return;
  s->said = 1;
  char awaited[512], who[64] = "";
  int peer = atomic_load(&s->peer), rank = atomic_load(&s->rank);
  const char *call = atomic_load(&s->call), *inside = atomic_load(&s->inside);
  if (rank >= 0)
    snprintf(who, sizeof who, ", rank %d of %d", rank, atomic_load(&s->nranks));
  if (peer >= 0)
    snprintf(awaited, sizeof awaited, "%s to return%s, with peer %d (NCCL "
             "connects to a peer inside the first call that needs it, and "
             "returns once the peer made its matching call)", inside, who, peer);
  else
    snprintf(awaited, sizeof awaited, "%s to return%s (NCCL connects to its "
             "peers inside the first call that needs them, and returns once "
             "they made their matching calls)", inside, who);
  /* The watcher sees the wait a tick late at most: said as at least. */
  core_wait_note_say(call, now - s->seen_since_ms, awaited,
                     "ncore's timeout does not reach inside this call");
}

static void *watch(void *unused) {
  (void)unused;
  long long after_ms = core_wait_warn_after_ms();
  for (;;) {
    struct timespec tick = {0, WATCH_TICK_MS * 1000000L};
    nanosleep(&tick, NULL);
    long long now = core_log_now_ms();
    int used = atomic_load(&slots_used);
    for (int i = 0; i < used; i++) look(&slots[i], now, after_ms);
  }
  return NULL;
}

/* This thread's slot, and the watcher running; NULL where either cannot be. */
static __attribute__((noinline, cold)) watch_slot_t *claim(void) {
  pthread_once(&key_once, make_key);
  watch_slot_t *got = NULL;
  pthread_mutex_lock(&watch_lock);
  if (!watcher_running) {
    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    watcher_running = pthread_create(&thread, &attr, watch, NULL) == 0;
    pthread_attr_destroy(&attr);
  }
  int used = atomic_load(&slots_used);
  for (int i = 0; watcher_running && got == NULL && i < WATCH_SLOTS; i++) {
    if (i < used && atomic_load(&slots[i].in_use)) continue;
    got = &slots[i];
    atomic_store(&got->in_use, 1);
    if (i >= used) atomic_store(&slots_used, i + 1);
  }
  pthread_mutex_unlock(&watch_lock);
  if (got != NULL) (void)pthread_setspecific(slot_key, got);
  return got;
}

core_wait_watch_t *core_wait_watch_claim(void) {
  if (no_slot || core_wait_warn_after_ms() <= 0) return NULL;
  core_thread.watch = claim();
  if (core_thread.watch == NULL) no_slot = 1;
  return core_thread.watch;
}
