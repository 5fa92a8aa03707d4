/* Unit tests of the handle table itself (core/handles.c, compiled into this
 * program with CORE_HANDLE_LAST_GENERATION = 4; see tests/BUILD): a slot's
 * generations only grow, a slot that had its last generation is retired,
 * and a handle whose type tag was changed is refused.
 *
 * Why a lowered last generation: the library's slots retire after 2^32 - 1
 * objects, which public calls reach in about ten minutes per slot (issue
 * 27). The code is the same; only the constant differs, so 4 objects show
 * what 2^32 - 1 would. The arithmetic of the real table is checked in
 * `the_real_table_outlasts_any_job`; test_handles.c's
 * `stale_handles_stay_closed_over_many_reuses` is the bounded real run
 * through public calls.
 *
 * The tests from `a_close_leaves_the_object_to_the_thread_inside_a_call`
 * on hold the destructor to "closed, and no reference left": never
 * earlier, exactly once, whichever thread lets go last (session 14: they
 * held a lock-free-reference form of the table too, which was measured
 * and not kept; docs/performance.md). */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "../../core/handles.h"

/* The table's errors land here (the library's error channel is not part
 * of this program). */
static char last_message[256];
static ncore_status_t last_status;

ncore_status_t core_error(ncore_status_t status, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, args);
  va_end(args);
  last_status = status;
  return status;
}

#define SLOT_OF(handle) ((handle) & ((UINT64_C(1) << 24) - 1))
#define GENERATION_OF(handle) (((handle) >> 24) & UINT32_MAX)
#define LAST_GENERATION 4u

static int destroyed;
static void count_destroy(core_object_t *obj) {
  (void)obj;
  destroyed++;
}

/* Inserts *obj as a custom operator; returns its handle. */
static uint64_t insert(core_object_t *obj) {
  memset(obj, 0, sizeof *obj);
  return core_handle_insert(obj, CORE_HANDLE_CUSTOM_REDOP, count_destroy);
}

/* Closes the object of handle (it must be live). */
static void close_handle(uint64_t handle) {
  core_object_t *obj = NULL;
  CHECK_EQ(core_handle_acquire(handle, CORE_HANDLE_CUSTOM_REDOP, "op", &obj),
           NCORE_OK);
  CHECK_EQ(core_handle_close(obj), 1);
  core_handle_release(obj);
}

TEST(a_slot_retires_at_its_last_generation) {
  /* The free list is last in, first out: each object takes the slot the
   * one before it left, until the slot has had its last generation. */
  core_object_t objects[LAST_GENERATION + 1];
  uint64_t handles[LAST_GENERATION + 1];
  for (unsigned i = 0; i <= LAST_GENERATION; i++) {
    handles[i] = insert(&objects[i]);
    CHECK(handles[i] != NCORE_NULL_HANDLE);
    if (i > 0 && i < LAST_GENERATION) {
      CHECK_EQ(SLOT_OF(handles[i]), SLOT_OF(handles[0]));
      CHECK(GENERATION_OF(handles[i]) > GENERATION_OF(handles[i - 1]));
    }
    if (i < LAST_GENERATION) close_handle(handles[i]);
    if (harness_failed()) return;
  }
  /* Generation LAST_GENERATION was the slot's last: the next object got
   * another slot instead of a wrapped generation (which would have made
   * its handle equal to the first one's). */
  CHECK(SLOT_OF(handles[LAST_GENERATION]) != SLOT_OF(handles[0]));
  for (unsigned i = 0; i < LAST_GENERATION; i++) {
    CHECK(handles[i] != handles[LAST_GENERATION]);
    core_object_t *obj = NULL;
    CHECK_EQ(core_handle_acquire(handles[i], CORE_HANDLE_CUSTOM_REDOP, "op", &obj),
             NCORE_ERR_CLOSED);
    CHECK_EQ(core_handle_classify(handles[i], CORE_HANDLE_CUSTOM_REDOP, "op"), 0);
  }
  close_handle(handles[LAST_GENERATION]);
  CHECK_EQ(destroyed, (int)LAST_GENERATION + 1);
}

TEST(no_number_of_reuses_brings_a_stale_handle_back) {
  /* Many objects one after another: every handle differs from every
   * earlier one, and the first stays closed throughout. */
  enum { OBJECTS = 4096 };
  static uint64_t seen[OBJECTS];
  core_object_t obj;
  for (int i = 0; i < OBJECTS; i++) {
    seen[i] = insert(&obj);
    CHECK(seen[i] != NCORE_NULL_HANDLE);
    for (int j = 0; j < i; j++) CHECK(seen[j] != seen[i]);
    CHECK_EQ(core_handle_classify(seen[0], CORE_HANDLE_CUSTOM_REDOP, "op"),
             i == 0 ? 1 : 0);
    close_handle(seen[i]);
    if (harness_failed()) return;
  }
}

TEST(a_handle_whose_tag_was_changed_is_refused) {
  core_object_t obj;
  uint64_t handle = insert(&obj);
  CHECK(handle != NCORE_NULL_HANDLE);
  /* The operator's slot and generation under a communicator's tag: the
   * audit's forged handle, which was used as a communicator. */
  uint64_t forged = (handle & ~(UINT64_C(0xff) << 56)) |
                    ((uint64_t)CORE_HANDLE_COMM << 56);
  core_object_t *got = NULL;
  CHECK_EQ(core_handle_acquire(forged, CORE_HANDLE_COMM, "comm", &got),
           NCORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(last_message, "comm:") != NULL);
  CHECK(strstr(last_message, "not a communicator handle") != NULL);
  CHECK(got == NULL);
  CHECK_EQ(core_handle_classify(forged, CORE_HANDLE_COMM, "comm"), -1);
  /* The refused lookup took no reference away or left one behind: the
   * operator is live and closes normally. */
  CHECK_EQ(core_handle_classify(handle, CORE_HANDLE_CUSTOM_REDOP, "op"), 1);
  int before = destroyed;
  close_handle(handle);
  CHECK_EQ(destroyed, before + 1);
}

/* An object that knows whether it was destroyed, and how often. */
typedef struct probe {
  core_object_t header;
  atomic_int alive;
  atomic_int destroyed;
} probe_t;

static void probe_destroy(core_object_t *obj) {
  probe_t *p = (probe_t *)obj;
  atomic_store(&p->alive, 0);
  atomic_fetch_add(&p->destroyed, 1);
}

static uint64_t insert_probe(probe_t *p) {
  memset(p, 0, sizeof *p);
  atomic_init(&p->alive, 1);
  atomic_init(&p->destroyed, 0);
  return core_handle_insert(&p->header, CORE_HANDLE_CUSTOM_REDOP, probe_destroy);
}

typedef struct holder {
  uint64_t handle;
  atomic_int stage; /* 1: holds it; 2: told to let go */
  ncore_status_t status;
} holder_t;

static void *hold_until_told(void *arg) {
  holder_t *h = arg;
  core_object_t *obj = NULL;
  h->status = core_handle_acquire(h->handle, CORE_HANDLE_CUSTOM_REDOP, "op",
                                  &obj);
  atomic_store(&h->stage, 1);
  if (h->status != NCORE_OK) return NULL;
  while (atomic_load(&h->stage) != 2) sched_yield();
  core_handle_release(obj);
  return NULL;
}

TEST(a_close_leaves_the_object_to_the_thread_inside_a_call) {
  probe_t p;
  holder_t h = {.handle = insert_probe(&p)};
  pthread_t thread;
  CHECK_EQ(pthread_create(&thread, NULL, hold_until_told, &h), 0);
  while (atomic_load(&h.stage) == 0) sched_yield();
  CHECK_EQ(h.status, NCORE_OK);
  close_handle(h.handle);
  /* Closed: no new lookup finds it, but the thread still uses it. */
  core_object_t *obj = NULL;
  CHECK_EQ(core_handle_acquire(h.handle, CORE_HANDLE_CUSTOM_REDOP, "op", &obj),
           NCORE_ERR_CLOSED);
  CHECK_EQ(atomic_load(&p.destroyed), 0);
  atomic_store(&h.stage, 2);
  pthread_join(thread, NULL);
  /* Its release was the last thing keeping it: destroyed there, once. */
  CHECK_EQ(atomic_load(&p.destroyed), 1);
}

TEST(many_lookups_at_once_released_out_of_order) {
  /* A thread holding several lookups of two objects, released in another
   * order than taken: each object goes at its own last release. */
  enum { LOOKUPS = 11 };
  probe_t a, b;
  uint64_t handle_a = insert_probe(&a), handle_b = insert_probe(&b);
  core_object_t *objs[LOOKUPS];
  for (int i = 0; i < LOOKUPS; i++)
    CHECK_EQ(core_handle_acquire(i % 2 ? handle_b : handle_a,
                                 CORE_HANDLE_CUSTOM_REDOP, "op", &objs[i]),
             NCORE_OK);
  close_handle(handle_a);
  close_handle(handle_b);
  for (int i = 0; i < LOOKUPS; i += 2) core_handle_release(objs[i]);
  CHECK_EQ(atomic_load(&a.destroyed), 1);
  CHECK_EQ(atomic_load(&b.destroyed), 0);
  for (int i = 1; i < LOOKUPS; i += 2) core_handle_release(objs[i]);
  CHECK_EQ(atomic_load(&b.destroyed), 1);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The race: threads look up whatever handle is current while the main
 * thread closes it and makes the next. */
enum { RACE_OBJECTS = 3000, RACE_THREADS = 4, RACE_CHECKPOINT = 100 };
static probe_t race_probes[RACE_OBJECTS];
static _Atomic uint64_t race_handle;
static atomic_int race_done, race_used_dead, race_found;

static void *race_lookups(void *arg) {
  (void)arg;
  while (!atomic_load(&race_done)) {
    core_object_t *obj = NULL;
    if (core_handle_acquire(atomic_load(&race_handle), CORE_HANDLE_CUSTOM_REDOP,
                            "op", &obj) != NCORE_OK)
      continue;
    atomic_fetch_add(&race_found, 1);
    for (int spin = 0; spin < 50; spin++)
      if (!atomic_load(&((probe_t *)obj)->alive))
        atomic_fetch_add(&race_used_dead, 1);
    core_handle_release(obj);
  }
  return NULL;
}

/* Yields until race_found exceeds *seen (then updates *seen and returns 1),
 * or 20 s passed (returns 0). */
static int lookup_succeeds_after(int *seen) {
  double give_up = now_seconds() + 20.0;
  while (atomic_load(&race_found) == *seen && now_seconds() < give_up) sched_yield();
  if (atomic_load(&race_found) == *seen) return 0;
  *seen = atomic_load(&race_found);
  return 1;
}

TEST(lookups_racing_closes_never_see_a_destroyed_object) {
  pthread_t threads[RACE_THREADS];
  atomic_store(&race_handle, insert_probe(&race_probes[0]));
  for (int t = 0; t < RACE_THREADS; t++)
    CHECK_EQ(pthread_create(&threads[t], NULL, race_lookups, NULL), 0);
  /* The lookups must run between the closes, on a loaded machine too: on
   * a 2-core CI machine under ASan all 3000 closes once ended before a
   * lookup thread had run. So every RACE_CHECKPOINT objects this thread
   * yields until some lookup succeeded since the last checkpoint. */
  int found_at_checkpoint = 0;
  for (int i = 1; i < RACE_OBJECTS; i++) {
    uint64_t old = atomic_load(&race_handle);
    for (volatile int spin = 0; spin < 2000; spin++) {
    }
    atomic_store(&race_handle, insert_probe(&race_probes[i]));
    int stalled = i % RACE_CHECKPOINT == 0 && !lookup_succeeds_after(&found_at_checkpoint);
    close_handle(old);
    if (stalled) {
      harness_fail(__FILE__, __LINE__, "no lookup found object %d within 20 s", i);
      break; /* the threads are stopped below */
    }
  }
  close_handle(atomic_load(&race_handle));
  atomic_store(&race_done, 1);
  for (int t = 0; t < RACE_THREADS; t++) pthread_join(threads[t], NULL);
  CHECK_EQ(atomic_load(&race_used_dead), 0);
  CHECK(atomic_load(&race_found) > 0);
  for (int i = 0; i < RACE_OBJECTS; i++)
    CHECK_EQ(atomic_load(&race_probes[i].destroyed), 1);
}

TEST(the_real_table_outlasts_any_job) {
  /* The library's constants (core/handles.c): 24 slot bits (slot index + 1,
   * 0 being the NULL handle), 32 generation bits, generations 1 .. 2^32 - 1
   * per slot before it retires. */
  const double slots = (double)((UINT64_C(1) << 24) - 1);
  const double per_slot = (double)UINT32_MAX;
  const double objects = slots * per_slot;
  /* Creating and closing one object through public calls costs at least
   * the table's own insert + close, which this loop times (a real create
   * adds its backend's work: the audit's 2^32 PreMulSum create + close
   * pairs took 580 s, 135 ns a pair). */
  enum { ROUNDS = 200000 };
  core_object_t obj;
  double start = now_seconds();
  for (int i = 0; i < ROUNDS; i++) {
    uint64_t handle = insert(&obj);
    core_object_t *got = NULL;
    CHECK_EQ(core_handle_acquire(handle, CORE_HANDLE_CUSTOM_REDOP, "op", &got),
             NCORE_OK);
    core_handle_close(got);
    core_handle_release(got);
  }
  double per_object = (now_seconds() - start) / ROUNDS;
  double years = objects * per_object / (365.25 * 24 * 3600);
  printf("# %.0f ns per insert + close: the table's %.2e objects last %.0f "
         "years of nothing but creating objects\n",
         per_object * 1e9, objects, years);
  /* Every object ever made has its own handle until the table runs out,
   * and then an insert answers "no free slot" (no alias ever): that must
   * lie beyond any job's life even at the bare table's speed. */
  CHECK(years > 10);
}

HARNESS_MAIN
