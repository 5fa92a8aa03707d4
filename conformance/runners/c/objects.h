/* Conformance runner (C): the named objects a plan's steps make and use. */
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
} object_t;

/* Adds or replaces the object called name; returns it. */
object_t *objects_put(const char *name, object_kind_t kind);
/* The object called name, or NULL. */
object_t *objects_get(const char *name);
/* The handle an argument names: 0 for "null" or an unknown name. */
uint64_t objects_handle(const char *name);

#endif
