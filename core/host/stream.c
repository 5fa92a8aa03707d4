/* core/host — streams, devices and copies. Host operations complete in call
 * order, so a stream is only a token that the backend can recognise. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "stream.h"

#include "../error.h"

typedef struct stream_node {
  void *token;
  struct stream_node *next;
} stream_node_t;

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static stream_node_t *streams;

ncore_status_t host_stream_create(ncore_stream_t *out) {
  stream_node_t *n = malloc(sizeof *n);
  void *token = malloc(1);
  if (!n || !token) {
    free(n);
    free(token);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  n->token = token;
  pthread_mutex_lock(&streams_lock);
  n->next = streams;
  streams = n;
  pthread_mutex_unlock(&streams_lock);
  *out = token;
  return NCORE_OK;
}

/* Removes (remove=1) or finds a live stream token; 1 if present. */
static int stream_find(void *token, int remove) {
  int found = 0;
  pthread_mutex_lock(&streams_lock);
  for (stream_node_t **at = &streams; *at; at = &(*at)->next) {
    if ((*at)->token != token) continue;
    found = 1;
    if (remove) {
      stream_node_t *n = *at;
      *at = n->next;
      free(n->token);
      free(n);
    }
    break;
  }
  pthread_mutex_unlock(&streams_lock);
  return found;
}

ncore_status_t host_stream_check(ncore_stream_t stream, const char *argument) {
  if (stream == NULL || stream_find(stream, 0)) return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: not a stream of the host backend", argument);
}

ncore_status_t host_stream_destroy(ncore_stream_t stream) {
  if (stream == NULL) return NCORE_OK;
  if (!stream_find(stream, 1))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "stream: not a stream of the host backend");
  return NCORE_OK;
}

ncore_status_t host_stream_synchronize(ncore_stream_t stream) {
  return host_stream_check(stream, "stream");
}

ncore_status_t host_memcpy_async(void *dst, const void *src, size_t bytes,
                                 ncore_memcpy_kind_t kind,
                                 ncore_stream_t stream) {
  (void)kind;
  ncore_status_t s = host_stream_check(stream, "stream");
  if (s != NCORE_OK) return s;
  memmove(dst, src, bytes);
  return NCORE_OK;
}

ncore_status_t host_memset_async(void *dst, int value, size_t bytes,
                                 ncore_stream_t stream) {
  ncore_status_t s = host_stream_check(stream, "stream");
  if (s != NCORE_OK) return s;
  memset(dst, value, bytes);
  return NCORE_OK;
}

ncore_status_t host_device_count(int *out) {
  *out = 1;  /* the CPU, as one device, so "device i of count" loops run once */
  return NCORE_OK;
}

ncore_status_t host_device_set(int device) {
  if (device == -1 || device == 0) return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "device: %d; the host backend accepts only -1 or 0", device);
}

ncore_status_t host_device_get(int *out) {
  *out = -1;
  return NCORE_OK;
}
