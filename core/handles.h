/* core — the handle table.
 *
 * Public handles are 64-bit integers: type tag (bits 56..63), generation
 * (bits 24..55) and slot index + 1 (bits 0..23). A slot's generation grows
 * each time it is freed, and a slot that reached the last generation is
 * retired instead of wrapping, so a stale handle never matches a live
 * object; every lookup also checks that the object found is of the handle's
 * type.
 * Objects are reference-counted: core_handle_acquire takes a reference that
 * the caller drops with core_handle_release; the object's destructor runs when
 * the handle is closed and the last reference is gone. That is what lets
 * ncore_comm_abort run on one thread while another is blocked in a call.
 * Lookups, references and close take no lock (handles.c says how). */
#ifndef NCORE_CORE_HANDLES_H
#define NCORE_CORE_HANDLES_H

#include <stdatomic.h>
#include <stdint.h>
#include <ncore.h>

typedef enum core_handle_type {
  CORE_HANDLE_COMM = 1,
  CORE_HANDLE_REGISTERED_BUFFER = 2,
  CORE_HANDLE_WINDOW = 3,
  CORE_HANDLE_CUSTOM_REDOP = 4,
  CORE_HANDLE_DEV_COMM = 5,
  CORE_HANDLE_SYMMETRIC = 6
} core_handle_type_t;

/* A slot of the table (handles.c says how it is used): the object, its
 * state word (generation | closed mark | references) and, under the
 * table's lock, the free list's link. One cache line each: threads driving
 * different communicators touch different lines. In the header only so
 * that a release can be inline. */
typedef struct core_handle_slot {
  _Alignas(64) _Atomic(struct core_object *) object; /* NULL when free */
  _Atomic uint64_t state;
  uint32_t next_free; /* under the lock: index + 1 of the next free slot */
} core_handle_slot_t;
/* The state word's references (bits 0..30). */
#define CORE_HANDLE_STATE_REFS_MASK UINT64_C(0x7fffffff)

/* Every object in the table starts with this header. */
typedef struct core_object {
  core_handle_type_t type;
  uint64_t handle;
  /* The table's slot of the object (handles.c), set by core_handle_insert:
   * a release finds it without the lookup a handle needs. */
  struct core_handle_slot *slot;
  /* Runs once the handle is closed and its last reference dropped. The
   * references and the closed mark live in the object's slot. */
  void (*destroy)(struct core_object *self);
} core_object_t;

/* Inserts obj (refcount becomes 1, owned by the table) and returns its
 * handle, or NCORE_NULL_HANDLE when the table is full (error recorded). */
uint64_t core_handle_insert(core_object_t *obj, core_handle_type_t type,
                            void (*destroy)(core_object_t *));

/* Looks up a live handle of the given type and takes a reference.
 * argument: the parameter name for messages ("comm", "peer_window").
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL handle, wrong type tag,
 * a tag that does not match the object the handle names, slot out of
 * range); NCORE_ERR_CLOSED (stale or closed). */
ncore_status_t core_handle_acquire(uint64_t handle, core_handle_type_t type,
                                   const char *argument, core_object_t **out);

/* The end of a release that dropped the last reference (before: the state
 * word before the drop): frees or retires the slot, runs the destructor. */
void core_handle_release_last(core_object_t *obj, uint64_t before);

/* Drops a reference taken by core_handle_acquire or core_handle_retain;
 * NULL is a no-op. At zero (only after close: the table holds one until
 * then) the slot is freed and the destructor runs. */
static inline void core_handle_release(core_object_t *obj) {
  if (obj == NULL) return;
  uint64_t before = atomic_fetch_sub_explicit(&obj->slot->state, 1,
                                              memory_order_acq_rel);
  if ((before & CORE_HANDLE_STATE_REFS_MASK) == 1)
    core_handle_release_last(obj, before);
}

/* Takes one more reference on obj, which the caller already holds one on
 * (a group keeping what its queued calls use). */
static inline void core_handle_retain(core_object_t *obj) {
  atomic_fetch_add_explicit(&obj->slot->state, 1, memory_order_relaxed);
}

/* 1 if match(obj, arg) holds for an object of type still in the table
 * (closed ones too, until their last reference goes), else 0. match runs
 * under the table lock (no object is freed meanwhile) and must not call
 * into the table. */
int core_handle_any(core_handle_type_t type,
                    int (*match)(const core_object_t *obj, const void *arg),
                    const void *arg);

/* Closes the handle: later lookups answer CLOSED, and the table's reference is
 * dropped. Returns 1 if this call closed it, 0 if it was already closed
 * (idempotent close). */
int core_handle_close(core_object_t *obj);

/* Classifies a handle for idempotent close calls: 1 live, 0 stale (was a
 * handle of this type, now closed), -1 not a handle of this type (error
 * recorded as INVALID_ARGUMENT). */
int core_handle_classify(uint64_t handle, core_handle_type_t type,
                         const char *argument);

#endif
