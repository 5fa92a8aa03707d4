/* Conformance runner (C): a small name -> object table. */
#include "objects.h"

#include <stdio.h>
#include <string.h>

#define MAX_OBJECTS 256
static object_t table[MAX_OBJECTS];
static int count;

object_t *objects_put(const char *name, object_kind_t kind) {
  object_t *obj = objects_get(name);
  if (!obj) {
    if (count == MAX_OBJECTS) return NULL;
    obj = &table[count++];
  }
  memset(obj, 0, sizeof *obj);
  snprintf(obj->name, sizeof obj->name, "%s", name);
  obj->kind = kind;
  return obj;
}

object_t *objects_get(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < count; i++)
    if (strcmp(table[i].name, name) == 0) return &table[i];
  return NULL;
}

uint64_t objects_handle(const char *name) {
  object_t *obj = objects_get(name);
  return obj ? obj->handle : NCORE_NULL_HANDLE;
}
