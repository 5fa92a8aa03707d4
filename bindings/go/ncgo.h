/* ncgo.h — the cgo layer of the Go binding: one tiny wrapper per ncore call.
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

/* ---- communicators ---- */
static inline ncgo_result ncgo_get_unique_id(ncore_unique_id_t *out, int backend) {
  return ncgo_result_of(ncore_get_unique_id(out, (ncore_backend_t)backend));
}
static inline ncgo_result ncgo_comm_init_rank(ncore_comm_t *out, int nranks,
    const ncore_unique_id_t *id, int rank, const ncore_comm_config_t *config) {
  return ncgo_result_of(ncore_comm_init_rank(out, nranks, id, rank, config));
}
static inline ncgo_result ncgo_comm_init_all(ncore_comm_t *comms, int ndev,
    const int *devlist, const ncore_comm_config_t *config) {
  return ncgo_result_of(ncore_comm_init_all(comms, ndev, devlist, config));
}
static inline ncgo_result ncgo_comm_split(ncore_comm_t comm, int color, int key,
    ncore_comm_t *out, const ncore_comm_config_t *config) {
  return ncgo_result_of(ncore_comm_split(comm, color, key, out, config));
}
static inline ncgo_result ncgo_comm_shrink(ncore_comm_t comm, const int *exclude,
    int exclude_count, ncore_comm_t *out, const ncore_comm_config_t *config,
    uint32_t flags) {
  return ncgo_result_of(ncore_comm_shrink(comm, exclude, exclude_count, out, config, flags));
}
static inline ncgo_result ncgo_comm_finalize(ncore_comm_t c) { return ncgo_result_of(ncore_comm_finalize(c)); }
static inline ncgo_result ncgo_comm_destroy(ncore_comm_t c) { return ncgo_result_of(ncore_comm_destroy(c)); }
static inline ncgo_result ncgo_comm_abort(ncore_comm_t c) { return ncgo_result_of(ncore_comm_abort(c)); }
static inline ncgo_result ncgo_comm_rank(ncore_comm_t c, int *o) { return ncgo_result_of(ncore_comm_rank(c, o)); }
static inline ncgo_result ncgo_comm_size(ncore_comm_t c, int *o) { return ncgo_result_of(ncore_comm_size(c, o)); }
static inline ncgo_result ncgo_comm_device(ncore_comm_t c, int *o) { return ncgo_result_of(ncore_comm_device(c, o)); }
static inline ncgo_result ncgo_comm_lsa_rank(ncore_comm_t c, int *o) { return ncgo_result_of(ncore_comm_lsa_rank(c, o)); }
static inline ncgo_result ncgo_comm_lsa_size(ncore_comm_t c, int *o) { return ncgo_result_of(ncore_comm_lsa_size(c, o)); }
static inline ncgo_result ncgo_comm_backend(ncore_comm_t c, int *o) {
  ncore_backend_t b = NCORE_BACKEND_AUTO;
  ncgo_result r = ncgo_result_of(ncore_comm_backend(c, &b));
  *o = (int)b;
  return r;
}
static inline ncgo_result ncgo_comm_async_error(ncore_comm_t c, int *o) {
  ncore_status_t s = NCORE_OK;
  ncgo_result r = ncgo_result_of(ncore_comm_async_error(c, &s));
  *o = (int)s;
  return r;
}
static inline ncgo_result ncgo_comm_gin_type(ncore_comm_t c, int *o) {
  ncore_gin_type_t g = NCORE_GIN_TYPE_NONE;
  ncgo_result r = ncgo_result_of(ncore_comm_gin_type(c, &g));
  *o = (int)g;
  return r;
}
static inline ncgo_result ncgo_comm_railed_gin_type(ncore_comm_t c, int *o) {
  ncore_gin_type_t g = NCORE_GIN_TYPE_NONE;
  ncgo_result r = ncgo_result_of(ncore_comm_railed_gin_type(c, &g));
  *o = (int)g;
  return r;
}
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

/* ---- point-to-point and collectives ---- */
static inline ncgo_result ncgo_send(ncore_comm_t c, void *hp, uintptr_t dp, size_t n,
    int dt, int peer, uintptr_t s) {
  return ncgo_result_of(ncore_send(c, NCGO_PTR(hp, dp), n, (ncore_dtype_t)dt, peer, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_recv(ncore_comm_t c, void *hp, uintptr_t dp, size_t n,
    int dt, int peer, uintptr_t s) {
  return ncgo_result_of(ncore_recv(c, NCGO_PTR(hp, dp), n, (ncore_dtype_t)dt, peer, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_allreduce(ncore_comm_t c, void *shp, uintptr_t sdp,
    void *rhp, uintptr_t rdp, size_t n, int dt, int op, uintptr_t s) {
  return ncgo_result_of(ncore_allreduce(c, NCGO_PTR(shp, sdp), NCGO_PTR(rhp, rdp), n,
      (ncore_dtype_t)dt, (ncore_redop_t)op, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_broadcast(ncore_comm_t c, void *shp, uintptr_t sdp,
    void *rhp, uintptr_t rdp, size_t n, int dt, int root, uintptr_t s) {
  return ncgo_result_of(ncore_broadcast(c, NCGO_PTR(shp, sdp), NCGO_PTR(rhp, rdp), n,
      (ncore_dtype_t)dt, root, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_reduce(ncore_comm_t c, void *shp, uintptr_t sdp,
    void *rhp, uintptr_t rdp, size_t n, int dt, int op, int root, uintptr_t s) {
  return ncgo_result_of(ncore_reduce(c, NCGO_PTR(shp, sdp), NCGO_PTR(rhp, rdp), n,
      (ncore_dtype_t)dt, (ncore_redop_t)op, root, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_allgather(ncore_comm_t c, void *shp, uintptr_t sdp,
    void *rhp, uintptr_t rdp, size_t n, int dt, uintptr_t s) {
  return ncgo_result_of(ncore_allgather(c, NCGO_PTR(shp, sdp), NCGO_PTR(rhp, rdp), n,
      (ncore_dtype_t)dt, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_reduce_scatter(ncore_comm_t c, void *shp, uintptr_t sdp,
    void *rhp, uintptr_t rdp, size_t n, int dt, int op, uintptr_t s) {
  return ncgo_result_of(ncore_reduce_scatter(c, NCGO_PTR(shp, sdp), NCGO_PTR(rhp, rdp), n,
      (ncore_dtype_t)dt, (ncore_redop_t)op, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_alltoall(ncore_comm_t c, void *shp, uintptr_t sdp,
    void *rhp, uintptr_t rdp, size_t n, int dt, uintptr_t s) {
  return ncgo_result_of(ncore_alltoall(c, NCGO_PTR(shp, sdp), NCGO_PTR(rhp, rdp), n,
      (ncore_dtype_t)dt, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_gather(ncore_comm_t c, void *shp, uintptr_t sdp,
    void *rhp, uintptr_t rdp, size_t n, int dt, int root, uintptr_t s) {
  return ncgo_result_of(ncore_gather(c, NCGO_PTR(shp, sdp), NCGO_PTR(rhp, rdp), n,
      (ncore_dtype_t)dt, root, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_scatter(ncore_comm_t c, void *shp, uintptr_t sdp,
    void *rhp, uintptr_t rdp, size_t n, int dt, int root, uintptr_t s) {
  return ncgo_result_of(ncore_scatter(c, NCGO_PTR(shp, sdp), NCGO_PTR(rhp, rdp), n,
      (ncore_dtype_t)dt, root, NCGO_STREAM(s)));
}

/* ---- one-sided ---- */
static inline ncgo_result ncgo_signal(ncore_comm_t c, int peer, int index, int context,
    uint32_t flags, uintptr_t s) {
  return ncgo_result_of(ncore_signal(c, peer, index, context, flags, NCGO_STREAM(s)));
}
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
static inline ncgo_result ncgo_put_signal(ncore_comm_t c, void *hp, uintptr_t dp, size_t n,
    int dt, int peer, ncore_window_t w, size_t off, int index, int context,
    uint32_t flags, uintptr_t s) {
  return ncgo_result_of(ncore_put_signal(c, NCGO_PTR(hp, dp), n, (ncore_dtype_t)dt, peer, w,
      off, index, context, flags, NCGO_STREAM(s)));
}

/* ---- registered buffers and custom operators ---- */
static inline ncgo_result ncgo_register_buffer(ncore_registered_buffer_t *out, ncore_comm_t c,
    uintptr_t p, size_t size) {
  return ncgo_result_of(ncore_register_buffer(out, c, (void *)p, size));
}
static inline ncgo_result ncgo_registered_buffer_size(ncore_registered_buffer_t b, size_t *o) {
  return ncgo_result_of(ncore_registered_buffer_size(b, o));
}
static inline ncgo_result ncgo_registered_buffer_pointer(ncore_registered_buffer_t b, uintptr_t *o) {
  void *p = NULL;
  ncgo_result r = ncgo_result_of(ncore_registered_buffer_pointer(b, &p));
  *o = (uintptr_t)p;
  return r;
}
static inline ncgo_result ncgo_registered_buffer_native_handle(ncore_registered_buffer_t b, uintptr_t *o) {
  return ncgo_result_of(ncore_registered_buffer_native_handle(b, o));
}
static inline ncgo_result ncgo_registered_buffer_close(ncore_registered_buffer_t b) {
  return ncgo_result_of(ncore_registered_buffer_close(b));
}
static inline ncgo_result ncgo_create_pre_mul_sum(ncore_custom_redop_t *out, ncore_comm_t c,
    void *hp, uintptr_t dp, int dt, int residence) {
  return ncgo_result_of(ncore_create_pre_mul_sum(out, c, NCGO_PTR(hp, dp), (ncore_dtype_t)dt,
      (ncore_scalar_residence_t)residence));
}
static inline ncgo_result ncgo_custom_redop_value(ncore_custom_redop_t op, int *o) {
  ncore_redop_t v = 0;
  ncgo_result r = ncgo_result_of(ncore_custom_redop_value(op, &v));
  *o = (int)v;
  return r;
}
static inline ncgo_result ncgo_custom_redop_dtype(ncore_custom_redop_t op, int *o) {
  ncore_dtype_t v = NCORE_INT8;
  ncgo_result r = ncgo_result_of(ncore_custom_redop_dtype(op, &v));
  *o = (int)v;
  return r;
}
static inline ncgo_result ncgo_custom_redop_close(ncore_custom_redop_t op) {
  return ncgo_result_of(ncore_custom_redop_close(op));
}

/* ---- windows ---- */
static inline ncgo_result ncgo_register_window(ncore_window_t *out, ncore_comm_t c,
    uintptr_t p, size_t size, uint32_t flags) {
  return ncgo_result_of(ncore_register_window(out, c, (void *)p, size, flags));
}
static inline ncgo_result ncgo_window_size(ncore_window_t w, size_t *o) {
  return ncgo_result_of(ncore_window_size(w, o));
}
static inline ncgo_result ncgo_window_peer_size(ncore_window_t w, int peer, size_t *o) {
  return ncgo_result_of(ncore_window_peer_size(w, peer, o));
}
static inline ncgo_result ncgo_window_user_pointer(ncore_window_t w, uintptr_t *o) {
  void *p = NULL;
  ncgo_result r = ncgo_result_of(ncore_window_user_pointer(w, &p));
  *o = (uintptr_t)p;
  return r;
}
static inline ncgo_result ncgo_window_flags(ncore_window_t w, uint32_t *o) {
  return ncgo_result_of(ncore_window_flags(w, o));
}
static inline ncgo_result ncgo_window_native_handle(ncore_window_t w, uintptr_t *o) {
  return ncgo_result_of(ncore_window_native_handle(w, o));
}
static inline ncgo_result ncgo_window_lsa_device_pointer(ncore_window_t w, int r, size_t off, uintptr_t *o) {
  void *p = NULL;
  ncgo_result res = ncgo_result_of(ncore_window_lsa_device_pointer(w, r, off, &p));
  *o = (uintptr_t)p;
  return res;
}
static inline ncgo_result ncgo_window_peer_device_pointer(ncore_window_t w, int peer, size_t off, uintptr_t *o) {
  void *p = NULL;
  ncgo_result res = ncgo_result_of(ncore_window_peer_device_pointer(w, peer, off, &p));
  *o = (uintptr_t)p;
  return res;
}
static inline ncgo_result ncgo_window_lsa_multimem_device_pointer(ncore_window_t w, size_t off, uintptr_t *o) {
  void *p = NULL;
  ncgo_result res = ncgo_result_of(ncore_window_lsa_multimem_device_pointer(w, off, &p));
  *o = (uintptr_t)p;
  return res;
}
static inline ncgo_result ncgo_window_close(ncore_window_t w) { return ncgo_result_of(ncore_window_close(w)); }

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
static inline ncgo_result ncgo_dev_comm_pointer(ncore_dev_comm_t d, uintptr_t *o) {
  void *p = NULL;
  ncgo_result r = ncgo_result_of(ncore_dev_comm_pointer(d, &p));
  *o = (uintptr_t)p;
  return r;
}
static inline ncgo_result ncgo_dev_comm_info(ncore_dev_comm_t d, ncore_dev_comm_info_t *o) {
  return ncgo_result_of(ncore_dev_comm_info(d, o));
}
static inline ncgo_result ncgo_dev_comm_close(ncore_dev_comm_t d) { return ncgo_result_of(ncore_dev_comm_close(d)); }

/* ---- symmetric memory ---- */
static inline ncgo_result ncgo_symmetric_alloc(ncore_symmetric_t *out, ncore_comm_t c, size_t n) {
  return ncgo_result_of(ncore_symmetric_alloc(out, c, n));
}
static inline ncgo_result ncgo_symmetric_size(ncore_symmetric_t s, size_t *o) {
  return ncgo_result_of(ncore_symmetric_size(s, o));
}
static inline ncgo_result ncgo_symmetric_local_pointer(ncore_symmetric_t s, uintptr_t *o) {
  void *p = NULL;
  ncgo_result r = ncgo_result_of(ncore_symmetric_local_pointer(s, &p));
  *o = (uintptr_t)p;
  return r;
}
static inline ncgo_result ncgo_symmetric_peer_pointer(ncore_symmetric_t s, int pe, uintptr_t *o) {
  void *p = NULL;
  ncgo_result r = ncgo_result_of(ncore_symmetric_peer_pointer(s, pe, &p));
  *o = (uintptr_t)p;
  return r;
}
static inline ncgo_result ncgo_symmetric_put(ncore_symmetric_t dst, size_t off, void *hp,
    uintptr_t dp, size_t n, int pe, uintptr_t s) {
  return ncgo_result_of(ncore_symmetric_put(dst, off, NCGO_PTR(hp, dp), n, pe, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_symmetric_get(void *hp, uintptr_t dp, ncore_symmetric_t src,
    size_t off, size_t n, int pe, uintptr_t s) {
  return ncgo_result_of(ncore_symmetric_get(NCGO_PTR(hp, dp), src, off, n, pe, NCGO_STREAM(s)));
}
static inline ncgo_result ncgo_symmetric_free(ncore_symmetric_t s) { return ncgo_result_of(ncore_symmetric_free(s)); }

/* ---- memory, streams, devices ---- */
static inline ncgo_result ncgo_backend_resolve(int requested, int *o) {
  ncore_backend_t b = NCORE_BACKEND_AUTO;
  ncgo_result r = ncgo_result_of(ncore_backend_resolve((ncore_backend_t)requested, &b));
  *o = (int)b;
  return r;
}
static inline ncgo_result ncgo_mem_alloc(uintptr_t *o, size_t n, int backend) {
  void *p = NULL;
  ncgo_result r = ncgo_result_of(ncore_mem_alloc(&p, n, (ncore_backend_t)backend));
  *o = (uintptr_t)p;
  return r;
}
static inline ncgo_result ncgo_mem_free(uintptr_t p, int backend) {
  return ncgo_result_of(ncore_mem_free((void *)p, (ncore_backend_t)backend));
}
static inline ncgo_result ncgo_device_count(int backend, int *o) {
  return ncgo_result_of(ncore_device_count((ncore_backend_t)backend, o));
}
static inline ncgo_result ncgo_device_set(int backend, int d) {
  return ncgo_result_of(ncore_device_set((ncore_backend_t)backend, d));
}
static inline ncgo_result ncgo_device_get(int backend, int *o) {
  return ncgo_result_of(ncore_device_get((ncore_backend_t)backend, o));
}
static inline ncgo_result ncgo_stream_create(uintptr_t *o, int backend) {
  ncore_stream_t s = NULL;
  ncgo_result r = ncgo_result_of(ncore_stream_create(&s, (ncore_backend_t)backend));
  *o = (uintptr_t)s;
  return r;
}
static inline ncgo_result ncgo_stream_destroy(uintptr_t s, int backend) {
  return ncgo_result_of(ncore_stream_destroy(NCGO_STREAM(s), (ncore_backend_t)backend));
}
static inline ncgo_result ncgo_stream_synchronize(uintptr_t s, int backend) {
  return ncgo_result_of(ncore_stream_synchronize(NCGO_STREAM(s), (ncore_backend_t)backend));
}
static inline ncgo_result ncgo_memcpy(void *dhp, uintptr_t ddp, void *shp, uintptr_t sdp,
    size_t n, int kind, uintptr_t s, int backend) {
  return ncgo_result_of(ncore_memcpy(NCGO_PTR(dhp, ddp), NCGO_PTR(shp, sdp), n,
      (ncore_memcpy_kind_t)kind, NCGO_STREAM(s), (ncore_backend_t)backend));
}
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
static inline ncgo_result ncgo_memset(void *hp, uintptr_t dp, int value, size_t n,
    uintptr_t s, int backend) {
  return ncgo_result_of(ncore_memset(NCGO_PTR(hp, dp), value, n, NCGO_STREAM(s), (ncore_backend_t)backend));
}

/* ---- data types ---- */
static inline ncgo_result ncgo_dtype_size(int dt, size_t *o) {
  return ncgo_result_of(ncore_dtype_size((ncore_dtype_t)dt, o));
}
static inline ncgo_result ncgo_dtype_name(int dt, const char **o) {
  return ncgo_result_of(ncore_dtype_name((ncore_dtype_t)dt, o));
}
static inline ncgo_result ncgo_dtype_from_typestr(const char *t, int *o) {
  ncore_dtype_t d = NCORE_INT8;
  ncgo_result r = ncgo_result_of(ncore_dtype_from_typestr(t, &d));
  *o = (int)d;
  return r;
}

/* ---- framework buffers (DLPack, array interface) ---- */
static inline ncgo_result ncgo_dtype_from_dlpack(uint8_t code, uint8_t bits, uint16_t lanes, int *o) {
  ncore_dtype_t d = NCORE_INT8;
  ncgo_result r = ncgo_result_of(ncore_dtype_from_dlpack(code, bits, lanes, &d));
  *o = (int)d;
  return r;
}
/* tensor: the address of a DLTensor that the caller's framework owns. */
static inline ncgo_result ncgo_buffer_resolve_dlpack(ncore_buffer_desc_t *out, uintptr_t tensor) {
  out->struct_size = (uint32_t)sizeof *out;
  return ncgo_result_of(ncore_buffer_resolve_dlpack(out, (const struct DLTensor *)tensor));
}
static inline ncgo_result ncgo_buffer_resolve_array_interface(ncore_buffer_desc_t *out,
    uintptr_t data, int ndim, const int64_t *shape, const int64_t *strides,
    const char *typestr, int device_id) {
  out->struct_size = (uint32_t)sizeof *out;
  return ncgo_result_of(ncore_buffer_resolve_array_interface(out, data, ndim, shape, strides,
      typestr, device_id));
}
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

#endif /* NCORE_GO_NCGO_H */
