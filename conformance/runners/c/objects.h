/* Conformance runner (C): the named objects a plan's steps make and use,
 * one table per case. */
#ifndef NCORE_CONFORMANCE_OBJECTS_H
#define NCORE_CONFORMANCE_OBJECTS_H

#include <ncore.h>

typedef enum object_kind {
  OBJECT_COMM,
  OBJECT_BUFFER,
  OBJECT_REGISTERED_BUFFER,
  OBJECT_WINDOW,
  OBJECT_CUSTOM_REDOP,
  OBJECT_DEV_COMM,
  OBJECT_SYMMETRIC,
  OBJECT_MEMORY
} object_kind_t;

typedef struct object {
  char name[64];
  object_kind_t kind;
  uint64_t handle;     /* handles */
  void *ptr;           /* buffers and memory */
  size_t bytes;
  ncore_dtype_t dtype; /* buffers */
  int plain;           /* buffer in ordinary host memory */
  int freed;           /* memory a mem_free step released */
} object_t;

/* Adds the object called name (a later one hides an earlier one of the
 * same name, which the table still releases at the end of the case);
 * returns it. */
object_t *objects_put(const char *name, object_kind_t kind);
/* The object called name, or NULL. */
object_t *objects_get(const char *name);
/* The handle an argument names: 0 for "null" or an unknown name. */
uint64_t objects_handle(const char *name);
/* Ends a case: destroys every communicator it made (their resources go
 * with them), then frees its memory, and empties the table. Errors are
 * ignored: the steps already reported what the case checks. */
void objects_clear(ncore_backend_t backend);

#endif
