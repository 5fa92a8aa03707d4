/* Conformance runner (C): a small name -> object table, one per case. */
#include "objects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OBJECTS 1024
static object_t table[MAX_OBJECTS];
static int count;

object_t *objects_put(const char *name, object_kind_t kind) {
  if (count == MAX_OBJECTS) {
    fprintf(stderr, "conformance: more than %d objects in one case\n", MAX_OBJECTS);
    exit(2);
  }
  object_t *obj = &table[count++];
  memset(obj, 0, sizeof *obj);
  snprintf(obj->name, sizeof obj->name, "%s", name ? name : "");
  obj->kind = kind;
  return obj;
}

object_t *objects_get(const char *name) {
  if (!name) return NULL;
  for (int i = count - 1; i >= 0; i--)
    if (strcmp(table[i].name, name) == 0) return &table[i];
  return NULL;
}

uint64_t objects_handle(const char *name) {
  object_t *obj = objects_get(name);
  return obj ? obj->handle : NCORE_NULL_HANDLE;
}

void objects_clear(ncore_backend_t backend) {
  /* Communicators first, newest first: no operation may still use the
   * memory freed next. */
  for (int i = count - 1; i >= 0; i--)
    if (table[i].kind == OBJECT_COMM && table[i].handle != NCORE_NULL_HANDLE)
      (void)ncore_comm_destroy(table[i].handle);
  for (int i = 0; i < count; i++) {
    object_t *obj = &table[i];
    if ((obj->kind != OBJECT_BUFFER && obj->kind != OBJECT_MEMORY) || obj->freed ||
        obj->ptr == NULL)
      continue;
    if (obj->plain) free(obj->ptr);
    else (void)ncore_mem_free(obj->ptr, backend);
  }
  count = 0;
}
