/* core — the handle table (core/handles.h).
 *
 * Slots live in fixed-size chunks that are allocated on demand and never
 * moved or freed, so a pointer to a slot stays valid while the table grows.
 * One mutex guards every slot and generation, and the lookups that take a
 * reference: handle operations are short, and a single lock keeps close /
 * acquire races simple to reason about. Reference counts are atomic, so
 * that dropping a reference and taking one more on an object the caller
 * already holds (every call's release, a group's holds) need no lock: a
 * lookup takes a reference only from a live handle, which still holds the
 * table's own reference, so a count never comes back from 0; the drop to 0
 * (after close) takes the lock to free the slot. Destructors run outside
 * the lock, because they call into backends and may close further
 * handles. */
#include <pthread.h>
#include <stdlib.h>

#include "error.h"
#include "handles.h"

#define SLOT_BITS 24
#define GENERATION_BITS 32
#define TYPE_SHIFT 56
#define SLOT_MASK ((UINT64_C(1) << SLOT_BITS) - 1)
#define GENERATION_MASK ((UINT64_C(1) << GENERATION_BITS) - 1)
#define MAX_SLOTS ((size_t)SLOT_MASK) /* slot index + 1 fits in 24 bits */
#define CHUNK_SLOTS 1024
#define MAX_CHUNKS ((MAX_SLOTS + CHUNK_SLOTS - 1) / CHUNK_SLOTS)

typedef struct slot {
  core_object_t *object;  /* NULL when free */
  uint32_t generation;    /* bumped each time the slot is freed */
  uint32_t next_free;     /* index + 1 of the next free slot, 0 = none */
} slot_t;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static slot_t *chunks[MAX_CHUNKS];
static size_t slots_in_use_range; /* slots ever handed out: [0, this) */
static uint32_t free_head;        /* index + 1 of a free slot, 0 = none */

/* The slot at index; the caller holds the lock and index < range. */
static slot_t *slot_at(size_t index) {
  return &chunks[index / CHUNK_SLOTS][index % CHUNK_SLOTS];
}

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
  if (slots_in_use_range >= MAX_SLOTS) return -1;
  size_t index = slots_in_use_range;
  size_t chunk = index / CHUNK_SLOTS;
  if (chunks[chunk] == NULL) {
    chunks[chunk] = calloc(CHUNK_SLOTS, sizeof(slot_t));
    if (chunks[chunk] == NULL) return -1;
    for (size_t i = 0; i < CHUNK_SLOTS; i++) chunks[chunk][i].generation = 1;
  }
  slots_in_use_range++;
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
  obj->type = type;
  atomic_init(&obj->refcount, 1);
  obj->closed = 0;
  obj->destroy = destroy;
  obj->handle = make_handle(type, slot->generation, (size_t)index);
  slot->object = obj;
  slot->next_free = 0;
  pthread_mutex_unlock(&table_lock);
  return obj->handle;
}

/* Lookup outcome, computed under the lock. */
typedef enum lookup {
  LOOKUP_LIVE,
  LOOKUP_STALE,   /* right type, closed or slot reused */
  LOOKUP_NULL,
  LOOKUP_WRONG_TYPE,
  LOOKUP_BAD_SLOT
} lookup_t;

static lookup_t lookup_locked(uint64_t handle, core_handle_type_t type,
                              slot_t **out) {
  if (handle == NCORE_NULL_HANDLE) return LOOKUP_NULL;
  if ((int)(handle >> TYPE_SHIFT) != (int)type) return LOOKUP_WRONG_TYPE;
  uint64_t slot_plus_one = handle & SLOT_MASK;
  if (slot_plus_one == 0 || slot_plus_one > slots_in_use_range)
    return LOOKUP_BAD_SLOT;
  slot_t *slot = slot_at((size_t)(slot_plus_one - 1));
  uint32_t generation = (uint32_t)((handle >> SLOT_BITS) & GENERATION_MASK);
  if (slot->object == NULL || slot->generation != generation ||
      slot->object->handle != handle || slot->object->closed)
    return LOOKUP_STALE;
  *out = slot;
  return LOOKUP_LIVE;
}

/* Records the error of a failed lookup and returns its status. */
static ncore_status_t lookup_error(lookup_t result, uint64_t handle,
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

ncore_status_t core_handle_acquire(uint64_t handle, core_handle_type_t type,
                                   const char *argument, core_object_t **out) {
  slot_t *slot = NULL;
  pthread_mutex_lock(&table_lock);
  lookup_t result = lookup_locked(handle, type, &slot);
  if (result == LOOKUP_LIVE) {
    atomic_fetch_add(&slot->object->refcount, 1);
    *out = slot->object;
  }
  pthread_mutex_unlock(&table_lock);
  if (result != LOOKUP_LIVE) return lookup_error(result, handle, type, argument);
  return NCORE_OK;
}

/* Drops one reference; frees the slot and runs the destructor at zero. */
void core_handle_release(core_object_t *obj) {
  if (obj == NULL) return;
  if (atomic_fetch_sub(&obj->refcount, 1) != 1) return;
  pthread_mutex_lock(&table_lock);
  size_t index = (size_t)(obj->handle & SLOT_MASK) - 1;
  slot_t *slot = slot_at(index);
  if (slot->object == obj) {
    slot->object = NULL;
    slot->generation++;
    if (slot->generation == 0) slot->generation = 1;
    slot->next_free = free_head;
    free_head = (uint32_t)(index + 1);
  }
  pthread_mutex_unlock(&table_lock);
  if (obj->destroy != NULL) obj->destroy(obj);
}

void core_handle_retain(core_object_t *obj) {
  atomic_fetch_add(&obj->refcount, 1);
}

int core_handle_any(core_handle_type_t type,
                    int (*match)(const core_object_t *obj, const void *arg),
                    const void *arg) {
  int found = 0;
  pthread_mutex_lock(&table_lock);
  for (size_t i = 0; i < slots_in_use_range && !found; i++) {
    const core_object_t *obj = slot_at(i)->object;
    found = obj != NULL && obj->type == type && match(obj, arg);
  }
  pthread_mutex_unlock(&table_lock);
  return found;
}

int core_handle_close(core_object_t *obj) {
  int closed_now = 0;
  pthread_mutex_lock(&table_lock);
  if (!obj->closed) {
    obj->closed = 1;
    closed_now = 1;
  }
  pthread_mutex_unlock(&table_lock);
  /* The table's own reference goes with the close. */
  if (closed_now) core_handle_release(obj);
  return closed_now;
}

int core_handle_classify(uint64_t handle, core_handle_type_t type,
                         const char *argument) {
  slot_t *slot = NULL;
  pthread_mutex_lock(&table_lock);
  lookup_t result = lookup_locked(handle, type, &slot);
  pthread_mutex_unlock(&table_lock);
  switch (result) {
    case LOOKUP_LIVE: return 1;
    case LOOKUP_STALE: return 0;
    default:
      lookup_error(result, handle, type, argument);
      return -1;
  }
}
