/* core/host — waiting: spin with a pause instruction, then yield, then short
 * sleeps (cores are shared), checking the local abort flag, peers' aborts
 * and deaths, and the timeout. */
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include "wait.h"

#include "../error.h"
#include "../log.h"
#include "failure.h"
#include "liveness.h"
#include "put_ring.h"
#include "rendezvous.h"

uint64_t host_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void host_waiter_init(host_waiter_t *w) {
  w->start_ns = w->last_check_ns = 0;
  w->spins = 0;
  w->notes = 0;
}

/* Appends rank r to a "1, 3" list. */
static void list_rank(char *out, size_t cap, size_t *used, int r) {
  if (*used + 16 >= cap) return;
  *used += (size_t)snprintf(out + *used, cap - *used, "%s%d", *used ? ", " : "", r);
}

/* The ranks c waits for, as "1, 3" into list, when the wait is for the
 * whole communicator: those that have not joined it, or, in a collective,
 * those that have not posted its step. Returns how many, and sets *joining
 * when they are ranks not joined; 0 when the wait is for the one peer its
 * `what` names. */
static int missing_ranks(host_comm_t *c, char *list, size_t cap, int *joining) {
  size_t used = 0;
  int count = 0;
  list[0] = '\0';
  *joining = atomic_load_explicit(&host_header(c)->joined_count,
                                  memory_order_acquire) < (uint32_t)c->nranks;
  for (int r = 0; r < c->nranks; r++) {
    int missing;
    if (*joining)
      missing = !atomic_load_explicit(&host_rank_slot(c, r)->joined,
                                      memory_order_acquire);
    else
      missing = c->coll_owner != NULL &&
                atomic_load_explicit(&host_rank_slot(c, r)->posted.value,
                                     memory_order_acquire) < c->coll_step;
    if (missing) {
      list_rank(list, cap, &used, r);
      count++;
    }
  }
  return count;
}

/* The ranks c waits for, as "; waiting for rank(s) 1, 3 (not joined)" into
 * out (for the INFO notes and the timeout's message); "" when the wait is
 * for the one peer `what` names. */
static void awaited_ranks(host_comm_t *c, char *out, size_t cap) {
  char list[256];
  int joining;
  out[0] = '\0';
  if (missing_ranks(c, list, sizeof list, &joining) > 0)
    snprintf(out, cap, "; waiting for rank(s) %s (%s)", list,
             joining ? "not joined" : "not at this collective yet");
}

/* After NCORE_WAIT_WARN_S of waiting, once: one WARN line naming the call,
 * the ranks (or the peer) it waits for and the time left (core/log.h). */
static void warn_waiting(host_waiter_t *w, host_comm_t *c, const char *what,
                         int peer) {
  if (!core_wait_note_due(&w->note)) return;
  char list[256], doing[96];
  int joining;
  int count = missing_ranks(c, list, sizeof list, &joining);
  snprintf(doing, sizeof doing, what, peer);
  long long deadline =
      c->timeout_ms >= 0 ? w->note.start_ms + (long long)c->timeout_ms : -1;
  if (count > 0 && joining)
    core_wait_note_check(&w->note, deadline, "%s %s to join the communicator; "
                         "this is rank %d of %d", count > 1 ? "ranks" : "rank",
                         list, c->rank, c->nranks);
  else if (count > 0)
    core_wait_note_check(&w->note, deadline, "%s %s to reach this %s; this is "
                         "rank %d of %d", count > 1 ? "ranks" : "rank", list,
                         doing, c->rank, c->nranks);
  else
    core_wait_note_check(&w->note, deadline, "%s to complete; this is rank %d "
                         "of %d", doing, c->rank, c->nranks);
}

/* Under NCORE_DEBUG=INFO, says every 5 s of waiting what is awaited. */
static void note_waiting(host_waiter_t *w, host_comm_t *c, const char *what,
                         int peer, uint64_t waited) {
  if (waited < (uint64_t)(w->notes + 1) * 5000000000u ||
      !core_log_enabled(CORE_LOG_INFO))
    return;
  w->notes++;
  char awaited[96], ranks[320];
  snprintf(awaited, sizeof awaited, what, peer);
  awaited_ranks(c, ranks, sizeof ranks);
  core_log(CORE_LOG_INFO, "rank %d of %d: %s still waiting after %llu s%s",
           c->rank, c->nranks, awaited,
           (unsigned long long)(waited / 1000000000u), ranks);
}

ncore_status_t host_comm_health(host_comm_t *c, int check_locks) {
  if (core_comm_state_aborted(c->state))
    return core_error(NCORE_ERR_CLOSED, "communicator was aborted");
  if (atomic_load_explicit(&c->forked, memory_order_relaxed))
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "comm: this process inherited the communicator through "
                      "fork(); only its creator can use it");
  uint64_t state = atomic_load_explicit(&host_header(c)->failure,
                                        memory_order_acquire);
  if (state & HOST_STATE_FAILED) {
    ncore_status_t status = host_state_status(state);
    if (host_state_rank(state) == c->rank)
      return core_error(status, "the communicator failed earlier: %s",
                        host_comm_failure_message(c));
    char why[400];
    host_comm_peer_failure(c, state, why, sizeof why);
    host_comm_note(c, status, "%s", why);
    return core_error(status, "%s", why);
  }
  for (int r = 0; r < c->nranks; r++) {
    if (r == c->rank) continue;
    host_rank_slot_t *s = host_rank_slot(c, r);
    if (atomic_load_explicit(&s->aborted, memory_order_relaxed))
      return core_error(NCORE_ERR_REMOTE, "peer %d aborted", r);
    if (check_locks && host_peer_died(c, r))
      return core_error(NCORE_ERR_REMOTE, "peer %d died", r);
  }
  return NCORE_OK;
}

/* How long a wait without progress polls, then yields, before it sleeps:
 * a partner that answers within microseconds is caught by polling (a sleep
 * costs 50-100 us of timer slack, which would dominate every ping-pong);
 * yielding lets a peer run that shares our CPU (more ranks than cores, or
 * another busy process: spinning for longer kept such a peer off the CPU
 * for a whole spin, 20-50 us per message); only a long wait (a slow peer,
 * a rank busy elsewhere) sleeps. The polls pause once each and read the
 * clock and check the peers only every HOST_CHECK_EVERY polls: the time
 * between two polls is the latency added to every message that arrives
 * meanwhile. With more ranks than CPUs, a rank that polls keeps a peer it
 * waits for off its CPU: it yields after HOST_POLLS_SHARED polls. */
#define HOST_POLLS 256u
#define HOST_POLLS_SHARED 16u
#define HOST_CHECK_EVERY 64u
#define HOST_YIELD_NS 5000000u

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

ncore_status_t host_waiter_pause(host_waiter_t *w, host_comm_t *c,
                                 const char *what, int peer) {
  w->spins++;
  /* Whoever waits lands the puts queued for it, so two ranks putting to
   * each other never wait on one another. */
  host_puts_drain(c);
  uint32_t polls = c->oversubscribed ? HOST_POLLS_SHARED : HOST_POLLS;
  if (w->spins < polls && w->spins % HOST_CHECK_EVERY != 1) {
    cpu_relax();
    return NCORE_OK;
  }
  uint64_t now = host_now_ns();
  if (!w->start_ns) {
    w->start_ns = w->last_check_ns = now;
    core_wait_note_start_at(&w->note, core_error_call(),
                            (long long)(now / 1000000u));
  }
  uint64_t waited = now - w->start_ns;
  if (w->spins < polls) {
    cpu_relax();
  } else if (waited < HOST_YIELD_NS) {
    sched_yield();
  } else {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
  }
  if (w->spins >= polls && (w->spins & 31) != 0) return NCORE_OK;
  int check_locks = now - w->last_check_ns > 5000000u;
  if (check_locks) w->last_check_ns = now;
  /* Rank 0 answers late claims of a rank (rendezvous.c) while it waits:
   * one non-blocking accept per 5 ms. */
  if (check_locks && c->rendezvous_fd >= 0 && !atomic_load(&c->forked))
    host_rendezvous_serve(c, c->rendezvous_fd, -1);
  ncore_status_t s = host_comm_health(c, check_locks);
  if (s != NCORE_OK) return s;
  if (c->timeout_ms >= 0 && waited > (uint64_t)c->timeout_ms * 1000000u) {
    char awaited[96], ranks[320];
    snprintf(awaited, sizeof awaited, what, peer);
    awaited_ranks(c, ranks, sizeof ranks);
    return core_error(NCORE_ERR_TIMEOUT, "%s timed out after %lld ms%s",
                      awaited, (long long)c->timeout_ms, ranks);
  }
  note_waiting(w, c, what, peer, waited);
  warn_waiting(w, c, what, peer);
  return NCORE_OK;
}
