/* core — the handle table (core/handles.h).
 *
 * Slots live in fixed-size chunks that are allocated on demand and never
 * moved or freed, so a pointer to a slot stays valid while the table grows,
 * and a thread may look at any slot at any time.
 *
 * The hot path takes no lock (the mutex was most of what ncore
 * added to a send). Each slot has one atomic state word: the slot's
 * generation (high 32 bits), the closed mark (bit 31) and the number of
 * references (bits 0..30). A lookup takes a reference with one
 * compare-and-swap, and only while the word still says: this generation
 * (the handle's), not closed, at least one reference (the table's own, held
 * until close). So a reference is never taken on a closed or freed object,
 * and never from 0. Close sets the mark with a compare-and-swap and drops
 * the table's reference; the drop to 0 is therefore final: it takes the
 * mutex to advance the generation (stale handles then fail the generation
 * test) and return the slot to the free list. The mutex guards the free
 * list, the growth of the table, and core_handle_any's walk. Destructors run
 * outside the lock, because they call into backends and may close further
 * handles. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "error.h"
#include "handles.h"
#include "hot_path.h"

#define SLOT_BITS 24
#define GENERATION_BITS 32
#define TYPE_SHIFT 56
#define SLOT_MASK ((UINT64_C(1) << SLOT_BITS) - 1)
#define GENERATION_MASK ((UINT64_C(1) << GENERATION_BITS) - 1)
#define MAX_SLOTS ((size_t)SLOT_MASK) /* slot index + 1 fits in 24 bits */
#define CHUNK_SLOTS 1024
#define MAX_CHUNKS ((MAX_SLOTS + CHUNK_SLOTS - 1) / CHUNK_SLOTS)
/* A slot's first and last generations. Tests build this file with a last
 * generation a few steps above the first (tests/unit/test_handle_table.c),
 * to reach retirement in a few reuses instead of 2^32. */
#define FIRST_GENERATION 1u
#ifndef CORE_HANDLE_LAST_GENERATION
#define CORE_HANDLE_LAST_GENERATION UINT32_MAX
#endif
_Static_assert(CORE_HANDLE_LAST_GENERATION <= GENERATION_MASK &&
                   CORE_HANDLE_LAST_GENERATION > FIRST_GENERATION,
               "generations must fit a handle's generation bits");

/* The state word. */
#define STATE_REFS_MASK CORE_HANDLE_STATE_REFS_MASK
#define STATE_CLOSED (UINT64_C(1) << 31)
#define STATE_GENERATION_SHIFT 32

/* One cache line each (handles.h): adjacent slots shared one, and every
 * call's reference count bounced it between the cores of threads driving
 * different communicators. */
typedef core_handle_slot_t slot_t;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
/* What a lookup reads before the slot, in one cache line while the table
 * has fewer than 7 chunks (7168 slots): the range, then the chunks. */
static struct {
  /* Slots ever handed out: [0, this). Grows under the lock; read by
   * lookups. */
  _Alignas(64) _Atomic size_t slots_in_use_range;
  _Atomic(slot_t *) chunks[MAX_CHUNKS];
} table;
static uint32_t free_head; /* under the lock: index + 1 of a free slot */

static uint32_t state_generation(uint64_t state) {
  return (uint32_t)(state >> STATE_GENERATION_SHIFT);
}

static uint64_t state_of(uint32_t generation, uint64_t refs) {
  return ((uint64_t)generation << STATE_GENERATION_SHIFT) | refs;
}

/* The slot at index; index < slots_in_use_range, read with acquire order
 * (the chunk was published before the range grew over it). */
static slot_t *slot_at(size_t index) {
  slot_t *chunk = atomic_load_explicit(&table.chunks[index / CHUNK_SLOTS],
                                       memory_order_acquire);
  return &chunk[index % CHUNK_SLOTS];
}

/* The index of an object's slot in the table. */
static size_t index_of(const core_object_t *obj) {
  return (size_t)(obj->handle & SLOT_MASK) - 1;
}

/* The slot of an object in the table. */
static slot_t *slot_of(const core_object_t *obj) { return obj->slot; }

/* A name for messages, per handle type. */
static const char *type_noun(int type) {
  switch (type) {
    case CORE_HANDLE_COMM: return "communicator";
    case CORE_HANDLE_REGISTERED_BUFFER: return "registered buffer";
    case CORE_HANDLE_WINDOW: return "window";
    case CORE_HANDLE_CUSTOM_REDOP: return "custom operator";
    case CORE_HANDLE_DEV_COMM: return "device communicator";
    case CORE_HANDLE_SYMMETRIC: return "symmetric allocation";
  }
  return "unknown object";
}

static uint64_t make_handle(core_handle_type_t type, uint32_t generation,
                            size_t index) {
  return ((uint64_t)type << TYPE_SHIFT) |
         (((uint64_t)generation & GENERATION_MASK) << SLOT_BITS) |
         (uint64_t)(index + 1);
}

/* Takes a free slot (lock held); returns its index or -1 when full. */
static long take_slot(void) {
  if (free_head != 0) {
    size_t index = free_head - 1;
    free_head = slot_at(index)->next_free;
    return (long)index;
  }
  size_t index = atomic_load_explicit(&table.slots_in_use_range, memory_order_relaxed);
  if (index >= MAX_SLOTS) return -1;
  size_t chunk = index / CHUNK_SLOTS;
  if (atomic_load_explicit(&table.chunks[chunk], memory_order_relaxed) == NULL) {
    slot_t *fresh = aligned_alloc(_Alignof(slot_t), CHUNK_SLOTS * sizeof(slot_t));
    if (fresh == NULL) return -1;
    for (size_t i = 0; i < CHUNK_SLOTS; i++) {
      atomic_init(&fresh[i].object, NULL);
      atomic_init(&fresh[i].state, state_of(FIRST_GENERATION, 0));
      fresh[i].next_free = 0;
    }
    atomic_store_explicit(&table.chunks[chunk], fresh, memory_order_release);
  }
  atomic_store_explicit(&table.slots_in_use_range, index + 1, memory_order_release);
  return (long)index;
}

uint64_t core_handle_insert(core_object_t *obj, core_handle_type_t type,
                            void (*destroy)(core_object_t *)) {
  pthread_mutex_lock(&table_lock);
  long index = take_slot();
  if (index < 0) {
    pthread_mutex_unlock(&table_lock);
    core_error(NCORE_ERR_SYSTEM,
               "handle table: no free slot for a new %s (out of memory or "
               "%zu handles open)", type_noun(type), (size_t)MAX_SLOTS);
    return NCORE_NULL_HANDLE;
  }
  slot_t *slot = slot_at((size_t)index);
  uint32_t generation = state_generation(
      atomic_load_explicit(&slot->state, memory_order_relaxed));
  obj->type = type;
  obj->destroy = destroy;
  obj->handle = make_handle(type, generation, (size_t)index);
  obj->slot = slot;
  atomic_store_explicit(&slot->object, obj, memory_order_relaxed);
  slot->next_free = 0;
  /* Publishes the object: a lookup that sees one reference sees it whole. */
  atomic_store_explicit(&slot->state, state_of(generation, 1),
                        memory_order_release);
  pthread_mutex_unlock(&table_lock);
  return obj->handle;
}

/* Lookup outcome. */
typedef enum lookup {
  LOOKUP_LIVE,
  LOOKUP_STALE,   /* right type, closed or slot reused */
  LOOKUP_NULL,
  LOOKUP_WRONG_TYPE,
  LOOKUP_WRONG_OBJECT, /* the tag is right, the object in the slot is not */
  LOOKUP_BAD_SLOT
} lookup_t;

/* Finds handle's slot and takes a reference on its object in the same step
 * as the liveness test; then checks that the object is of the handle's type
 * (its tag may have been changed), dropping the reference if not. */
static inline __attribute__((always_inline)) lookup_t lookup(
    uint64_t handle, core_handle_type_t type, core_object_t **out) {
  if (handle == NCORE_NULL_HANDLE) return LOOKUP_NULL;
  if ((int)(handle >> TYPE_SHIFT) != (int)type) return LOOKUP_WRONG_TYPE;
  uint64_t slot_plus_one = handle & SLOT_MASK;
  if (slot_plus_one == 0 ||
      slot_plus_one > atomic_load_explicit(&table.slots_in_use_range,
                                           memory_order_acquire))
    return LOOKUP_BAD_SLOT;
  slot_t *slot = slot_at((size_t)(slot_plus_one - 1));
  uint32_t generation = (uint32_t)((handle >> SLOT_BITS) & GENERATION_MASK);
  uint64_t state = atomic_load_explicit(&slot->state, memory_order_acquire);
  do {
    if (state_generation(state) != generation || (state & STATE_CLOSED) ||
        (state & STATE_REFS_MASK) == 0)
      return LOOKUP_STALE;
  } while (!atomic_compare_exchange_weak_explicit(&slot->state, &state,
                                                   state + 1,
                                                   memory_order_acquire,
                                                   memory_order_acquire));
  /* Our reference keeps the slot's object in place; its type was set
   * before the insert published it. One load, on the line the call is
   * about to read anyway. */
  core_object_t *obj = atomic_load_explicit(&slot->object, memory_order_relaxed);
  if (obj->type != type) {
    core_handle_release(obj);
    return LOOKUP_WRONG_OBJECT;
  }
  *out = obj;
  return LOOKUP_LIVE;
}

/* Records the error of a failed lookup and returns its status. */
static __attribute__((cold)) ncore_status_t lookup_error(lookup_t result, uint64_t handle,
                                   core_handle_type_t type,
                                   const char *argument) {
  const char *noun = type_noun(type);
  switch (result) {
    case LOOKUP_NULL:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: is NCORE_NULL_HANDLE, not a %s", argument, noun);
    case LOOKUP_WRONG_TYPE: {
      int tag = (int)(handle >> TYPE_SHIFT);
      if (tag >= CORE_HANDLE_COMM && tag <= CORE_HANDLE_SYMMETRIC)
        return core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "%s: is a %s handle, not a %s", argument,
                          type_noun(tag), noun);
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: 0x%llx is not a %s handle", argument,
                        (unsigned long long)handle, noun);
    }
    case LOOKUP_WRONG_OBJECT:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: 0x%llx is not a %s handle (its tag was changed: "
                        "the object it names is of another type)",
                        argument, (unsigned long long)handle, noun);
    case LOOKUP_BAD_SLOT:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: 0x%llx is not a %s handle (no such slot)",
                        argument, (unsigned long long)handle, noun);
    case LOOKUP_STALE:
      return core_error(NCORE_ERR_CLOSED, "%s: the %s was closed", argument,
                        noun);
    case LOOKUP_LIVE:
      break;
  }
  return NCORE_OK;
}

CORE_HOT ncore_status_t core_handle_acquire(uint64_t handle, core_handle_type_t type,
                                   const char *argument, core_object_t **out) {
  lookup_t result = lookup(handle, type, out);
  if (result != LOOKUP_LIVE) return lookup_error(result, handle, type, argument);
  return NCORE_OK;
}

/* Frees the slot — or retires it, after its last generation — and runs
 * the destructor. */
void core_handle_release_last(core_object_t *obj, uint64_t before) {
  slot_t *slot = slot_of(obj);
  size_t index = index_of(obj);
  /* No lookup can take a reference from 0: the slot is ours to free. */
  uint32_t generation = state_generation(before);
  int retire = generation >= CORE_HANDLE_LAST_GENERATION;
  pthread_mutex_lock(&table_lock);
  atomic_store_explicit(&slot->object, NULL, memory_order_relaxed);
  /* A retired slot keeps its last generation with no reference: every
   * handle of it answers stale, and no insert takes it again. */
  atomic_store_explicit(&slot->state,
                        state_of(retire ? generation : generation + 1, 0),
                        memory_order_release);
  if (!retire) {
    slot->next_free = free_head;
    free_head = (uint32_t)(index + 1);
  }
  pthread_mutex_unlock(&table_lock);
  if (obj->destroy != NULL) obj->destroy(obj);
}

int core_handle_any(core_handle_type_t type,
                    int (*match)(const core_object_t *obj, const void *arg),
                    const void *arg) {
  int found = 0;
  pthread_mutex_lock(&table_lock);
  size_t range = atomic_load_explicit(&table.slots_in_use_range, memory_order_relaxed);
  for (size_t i = 0; i < range && !found; i++) {
    const core_object_t *obj =
        atomic_load_explicit(&slot_at(i)->object, memory_order_relaxed);
    found = obj != NULL && obj->type == type && match(obj, arg);
  }
  pthread_mutex_unlock(&table_lock);
  return found;
}

int core_handle_close(core_object_t *obj) {
  slot_t *slot = slot_of(obj);
  uint64_t state = atomic_load_explicit(&slot->state, memory_order_relaxed);
  do {
    if (state & STATE_CLOSED) return 0;
  } while (!atomic_compare_exchange_weak_explicit(
      &slot->state, &state, state | STATE_CLOSED, memory_order_acq_rel,
      memory_order_relaxed));
  /* The table's own reference goes with the close. */
  core_handle_release(obj);
  return 1;
}

int core_handle_classify(uint64_t handle, core_handle_type_t type,
                         const char *argument) {
  core_object_t *obj = NULL;
  lookup_t result = lookup(handle, type, &obj);
  switch (result) {
    case LOOKUP_LIVE:
      core_handle_release(obj);
      return 1;
    case LOOKUP_STALE: return 0;
    default:
      lookup_error(result, handle, type, argument);
      return -1;
  }
}
