/* ncgo.h — the cgo layer of the Go binding: one tiny wrapper per ncore call.
 * The plain wrappers are generated from the headers into ncgo_gen.h
 * (gen-ncgo.py, checked by test.sh); this file holds what they share and the
 * few wrappers that do more than forward a call, which replace the
 * generated ones of the same name.
 *
 * Why wrappers: ncore_last_error_message() is thread-local, and two
 * successive cgo calls from one goroutine may run on different OS threads.
 * Each wrapper therefore calls the ncore function and, on failure, copies the
 * message in the same C call (ncgo_result_of). The copy is malloc'ed C memory
 * that the Go side frees after reading it.
 *
 * Why uintptr_t: device pointers and streams travel through Go as integers
 * (Go must never hold them as Go pointers). Buffer arguments come as a pair:
 * `hp` (a Go pointer into a host slice, valid for this call only) and `dp`
 * (an integer address of device / ncore memory); exactly one is used.
 *
 * Every function is static inline so that each Go file may include this
 * header without duplicate symbols. */
#ifndef NCORE_GO_NCGO_H
#define NCORE_GO_NCGO_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ncore.h>

/* A status plus, when it is not NCORE_OK, a malloc'ed copy of the message. */
typedef struct ncgo_result {
  int status;
  char *message;
} ncgo_result;

/* Packs status and (on failure) the calling thread's error message. Called
 * right after the ncore function, on the same thread. */
static inline ncgo_result ncgo_result_of(ncore_status_t status) {
  ncgo_result r;
  r.status = (int)status;
  r.message = NULL;
  if (status != NCORE_OK) {
    const char *m = ncore_last_error_message();
    r.message = strdup(m ? m : "");
  }
  return r;
}

/* Picks the host (Go) pointer when given, else the device address. */
#define NCGO_PTR(hp, dp) ((hp) != NULL ? (hp) : (void *)(uintptr_t)(dp))
#define NCGO_STREAM(s) ((ncore_stream_t)(uintptr_t)(s))

/* ---- groups ---- */
/* Groups belong to OS threads; the Go side keys its group records by the
 * thread, read here in the same C call (pthread_self is a register read,
 * where gettid would be a system call, slow in sandboxes). */
static inline uintptr_t ncgo_thread_id(void) { return (uintptr_t)pthread_self(); }
static inline ncgo_result ncgo_group_start(uintptr_t *tid) {
  *tid = ncgo_thread_id();
  return ncgo_result_of(ncore_group_start());
}
static inline ncgo_result ncgo_group_end(uintptr_t *tid) {
  *tid = ncgo_thread_id();
  return ncgo_result_of(ncore_group_end());
}

/* ---- one-sided ---- */
/* Waits on n descriptors laid out at a stride of `stride` bytes (the
 * struct_size the caller chose; normally sizeof). Go hands full-size structs;
 * a different stride is packed here into C memory (zero-filled), so that the
 * library sees exactly the layout a C caller with that struct_size would
 * pass. n == 0 passes NULL. */
static inline ncgo_result ncgo_wait_signal_strided(ncore_comm_t c,
    const ncore_wait_signal_desc_t *d, size_t n, uint32_t stride, uintptr_t s) {
  if (n == 0) return ncgo_result_of(ncore_wait_signal(c, NULL, 0, NCGO_STREAM(s)));
  if (stride == sizeof(ncore_wait_signal_desc_t))
    return ncgo_result_of(ncore_wait_signal(c, d, n, NCGO_STREAM(s)));
  size_t each = stride ? stride : 1;
  size_t copy = each < sizeof *d ? each : sizeof *d;
  unsigned char *packed = calloc(n, each > sizeof *d ? each : sizeof *d);
  if (packed == NULL) return ncgo_result_of(NCORE_ERR_SYSTEM);
  for (size_t i = 0; i < n; i++) {
    ncore_wait_signal_desc_t one = d[i];
    one.struct_size = stride;
    memcpy(packed + i * each, &one, copy);
  }
  ncgo_result r = ncgo_result_of(ncore_wait_signal(c, (const ncore_wait_signal_desc_t *)packed,
      n, NCGO_STREAM(s)));
  free(packed);
  return r;
}

/* ---- device communicators ---- */
/* The NCCL requirement lists are opaque addresses, set here so that Go never
 * converts an integer into a pointer. */
static inline ncgo_result ncgo_create_dev_comm(ncore_dev_comm_t *out, ncore_comm_t c,
    ncore_dev_comm_requirements_t *req, uintptr_t resource_list, uintptr_t team_list) {
  if (req != NULL) {
    req->resource_requirements_list = (void *)resource_list;
    req->team_requirements_list = (void *)team_list;
  }
  return ncgo_result_of(ncore_create_dev_comm(out, c, req));
}

/* ---- memory ---- */
/* memcpy / memset followed by a wait for the stream, in one C call: used when
 * a Go slice is involved, so that no CUDA operation holds the Go pointer
 * after the cgo call returns (cgo's pointer rules). */
static inline ncgo_result ncgo_memcpy_sync(void *dhp, uintptr_t ddp, void *shp, uintptr_t sdp,
    size_t n, int kind, uintptr_t s, int backend) {
  ncore_status_t st = ncore_memcpy(NCGO_PTR(dhp, ddp), NCGO_PTR(shp, sdp), n,
      (ncore_memcpy_kind_t)kind, NCGO_STREAM(s), (ncore_backend_t)backend);
  if (st == NCORE_OK) st = ncore_stream_synchronize(NCGO_STREAM(s), (ncore_backend_t)backend);
  return ncgo_result_of(st);
}
static inline ncgo_result ncgo_memset_sync(void *hp, uintptr_t dp, int value, size_t n,
    uintptr_t s, int backend) {
  ncore_status_t st = ncore_memset(NCGO_PTR(hp, dp), value, n, NCGO_STREAM(s), (ncore_backend_t)backend);
  if (st == NCORE_OK) st = ncore_stream_synchronize(NCGO_STREAM(s), (ncore_backend_t)backend);
  return ncgo_result_of(st);
}

/* ---- framework buffers ---- */
/* The descriptor is rebuilt here from integers, so Go hands no pointer. */
static inline ncgo_result ncgo_comm_check_buffer(ncore_comm_t c, uintptr_t ptr, size_t count,
    int dtype, int device_type, int device_id, const char *name) {
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  d.ptr = (void *)ptr;
  d.count = count;
  d.dtype = dtype;
  d.device_type = device_type;
  d.device_id = device_id;
  return ncgo_result_of(ncore_comm_check_buffer(c, &d, name));
}

/* ---- staging memory for Go slices queued inside a group ---- */
/* Copies n bytes between Go memory and C memory (both directions). */
static inline void ncgo_copy(void *dst, const void *src, size_t n) {
  if (n) memcpy(dst, src, n);
}
static inline void *ncgo_stage_alloc(size_t n) { return malloc(n ? n : 1); }
static inline void ncgo_stage_free(void *p) { free(p); }

/* Every other ncore call, generated from the headers. */
#include "ncgo_gen.h"

#endif /* NCORE_GO_NCGO_H */
