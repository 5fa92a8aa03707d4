/* Conformance runner (C): steps that move data — buffers, checks, p2p,
 * collectives, one-sided and symmetric operations. */
#include "ops.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[] = {
    "int8",    "uint8",   "int32",    "uint32",      "int64",      "uint64",
    "float16", "float32", "float64",  "bfloat16",    "float8_e4m3", "float8_e5m2"};

ncore_dtype_t op_dtype(const plan_step_t *step, const char *key) {
  const char *name = plan_arg(step, key);
  if (!name) return NCORE_FLOAT32;
  for (int i = 0; i < 12; i++)
    if (strcmp(name, dtype_names[i]) == 0) return (ncore_dtype_t)i;
  if (strncmp(name, "raw:", 4) == 0) return (ncore_dtype_t)atoi(name + 4);
  fprintf(stderr, "conformance: unknown dtype %s\n", name);
  exit(2);
}

static size_t dtype_bytes(ncore_dtype_t dtype) {
  size_t size = 0;
  return ncore_dtype_size(dtype, &size) == NCORE_OK ? size : 1;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

static void fill_hex(unsigned char *out, size_t bytes, const char *hex) {
  size_t n = strlen(hex) / 2;
  for (size_t i = 0; i < bytes; i++)
    out[i] = i < n ? (unsigned char)(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1]))
                   : 0;
}

/* iota:START:STEP:RANKSTRIDE for integer, float32 and float64 buffers. */
static void fill_iota(unsigned char *out, size_t count, ncore_dtype_t dtype,
                      const char *spec, int rank) {
  double start = 0, step = 1, stride = 0;
  sscanf(spec, "%lf:%lf:%lf", &start, &step, &stride);
  for (size_t i = 0; i < count; i++) {
    double v = start + step * (double)i + stride * rank;
    switch (dtype) {
      case NCORE_INT8: ((int8_t *)out)[i] = (int8_t)v; break;
      case NCORE_UINT8: ((uint8_t *)out)[i] = (uint8_t)v; break;
      case NCORE_INT32: ((int32_t *)out)[i] = (int32_t)v; break;
      case NCORE_UINT32: ((uint32_t *)out)[i] = (uint32_t)v; break;
      case NCORE_INT64: ((int64_t *)out)[i] = (int64_t)v; break;
      case NCORE_UINT64: ((uint64_t *)out)[i] = (uint64_t)v; break;
      case NCORE_FLOAT32: ((float *)out)[i] = (float)v; break;
      case NCORE_FLOAT64: ((double *)out)[i] = v; break;
      default:
        fprintf(stderr, "conformance: iota is not defined for dtype %d\n", dtype);
        exit(2);
    }
  }
}

/* The init pattern of a buffer, as host bytes. */
static void fill_init(unsigned char *out, size_t count, ncore_dtype_t dtype,
                      const char *init, int rank) {
  size_t bytes = count * dtype_bytes(dtype);
  if (!init || strcmp(init, "zero") == 0) {
    memset(out, 0, bytes);
  } else if (strncmp(init, "iota:", 5) == 0) {
    fill_iota(out, count, dtype, init + 5, rank);
  } else if (strncmp(init, "hex:", 4) == 0) {
    fill_hex(out, bytes, init + 4);
  } else if (strncmp(init, "rankhex:", 8) == 0) {
    const char *p = init + 8;
    for (int r = 0; r < rank && p; r++) {
      p = strchr(p, '/');
      if (p) p++;
    }
    char part[32768] = "";
    if (p) snprintf(part, sizeof part, "%.*s", (int)strcspn(p, "/"), p);
    fill_hex(out, bytes, part);
  } else {
    fprintf(stderr, "conformance: unknown init %s\n", init);
    exit(2);
  }
}

ncore_status_t op_buffer(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  ncore_dtype_t dtype = op_dtype(step, "dtype");
  size_t count = (size_t)plan_arg_int(step, "count", 0);
  size_t bytes = count * dtype_bytes(dtype);
  const char *memory = plan_arg(step, "memory");
  object_t *obj = objects_put(plan_arg(step, "name"), OBJECT_BUFFER);
  obj->dtype = dtype;
  obj->bytes = bytes;
  unsigned char *host = calloc(1, bytes ? bytes : 1);
  fill_init(host, count, dtype, plan_arg(step, "init"), r->rank);
  if (memory && strcmp(memory, "plain") == 0) {
    obj->plain = 1;
    obj->ptr = host;
    return NCORE_OK;
  }
  ncore_status_t st = ncore_mem_alloc(&obj->ptr, bytes ? bytes : 1, r->backend);
  if (st == NCORE_OK)
    st = ncore_memcpy(obj->ptr, host, bytes, NCORE_MEMCPY_HOST_TO_DEVICE, NULL, r->backend);
  if (st == NCORE_OK) st = ncore_stream_synchronize(NULL, r->backend);
  free(host);
  return st;
}

ncore_status_t op_check(runner_t *r, const plan_step_t *step, result_t *res) {
  object_t *obj = objects_get(plan_arg(step, "buffer"));
  if (!obj) return NCORE_ERR_INTERNAL;
  size_t elem = dtype_bytes(obj->dtype);
  size_t offset = (size_t)plan_arg_int(step, "offset", 0) * elem;
  size_t bytes = plan_arg(step, "count") ? (size_t)plan_arg_int(step, "count", 0) * elem
                                         : obj->bytes - offset;
  unsigned char *host = malloc(bytes ? bytes : 1);
  ncore_status_t st = ncore_stream_synchronize(NULL, r->backend);
  if (st == NCORE_OK)
    st = ncore_memcpy(host, (char *)obj->ptr + offset, bytes,
                      obj->plain ? NCORE_MEMCPY_HOST_TO_HOST : NCORE_MEMCPY_DEVICE_TO_HOST,
                      NULL, r->backend);
  if (st == NCORE_OK) st = ncore_stream_synchronize(NULL, r->backend);
  if (st == NCORE_OK) {
    res->hex = malloc(2 * bytes + 1);
    for (size_t i = 0; i < bytes; i++) sprintf(res->hex + 2 * i, "%02x", host[i]);
    res->hex[2 * bytes] = '\0';
  }
  free(host);
  return st;
}

ncore_status_t op_sync(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)step;
  (void)res;
  return ncore_stream_synchronize(NULL, r->backend);
}

/* A buffer argument's pointer, element offset applied; NULL for "null". */
static void *buffer_arg(const plan_step_t *step, const char *key,
                        const char *offset_key, int rank) {
  object_t *obj = objects_get(plan_arg(step, key));
  if (!obj) return NULL;
  size_t offset = (size_t)plan_arg_int(step, "offset", 0);
  if (offset_key) offset += (size_t)plan_arg_int(step, offset_key, 0) * (size_t)rank;
  return (char *)obj->ptr + offset * dtype_bytes(obj->dtype);
}

static ncore_comm_t comm_arg(runner_t *r, const plan_step_t *step) {
  const char *name = plan_arg(step, "comm");
  return name ? objects_handle(name) : r->world;
}

ncore_redop_t op_redop(const plan_step_t *step) {
  const char *op = plan_arg(step, "redop");
  if (!op || strcmp(op, "sum") == 0) return NCORE_SUM;
  if (strcmp(op, "prod") == 0) return NCORE_PROD;
  if (strcmp(op, "max") == 0) return NCORE_MAX;
  if (strcmp(op, "min") == 0) return NCORE_MIN;
  if (strcmp(op, "avg") == 0) return NCORE_AVG;
  if (strncmp(op, "raw:", 4) == 0) return (ncore_redop_t)atoi(op + 4);
  if (strncmp(op, "custom:", 7) == 0) {
    ncore_redop_t value = -1;
    /* A closed operator keeps the value it had: the runner remembers it. */
    object_t *obj = objects_get(op + 7);
    if (obj) value = (ncore_redop_t)obj->bytes;
    return value;
  }
  fprintf(stderr, "conformance: unknown op %s\n", op);
  exit(2);
}

/* send, recv: every point-to-point row of core/op_table.h. */
ncore_status_t op_p2p(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  op_call_t a = {0};
  a.comm = comm_arg(r, step);
  a.buf = buffer_arg(step, "buffer", NULL, r->rank);
  a.count = (size_t)plan_arg_int(step, "count", 0);
  a.dtype = op_dtype(step, "dtype");
  a.peer = (int)plan_arg_int(step, "peer", 0);
  a.stream = r->stream;
  return op_table_call(step->op, &a);
}

/* A collective step's `config` object (conformance/README.md) into *c:
 * NULL without one. Its fields by name; the rest keep
 * NCORE_COLL_CONFIG_INIT's values. */
static const ncore_coll_config_t *coll_config_arg(const plan_step_t *step,
                                                  ncore_coll_config_t *c,
                                                  char *selection, size_t size) {
  const char *text = plan_arg(step, "config");
  if (text == NULL || strcmp(text, "null") == 0) return NULL;
  ncore_coll_config_init(c, sizeof *c);
  static const struct {
    const char *name;
    size_t offset;
  } ints[] = {
      {"min_ctas", offsetof(ncore_coll_config_t, min_ctas)},
      {"max_ctas", offsetof(ncore_coll_config_t, max_ctas)},
      {"nvls_ctas", offsetof(ncore_coll_config_t, nvls_ctas)},
      {"cga_cluster_size", offsetof(ncore_coll_config_t, cga_cluster_size)},
      {"force_alg_selection", offsetof(ncore_coll_config_t, force_alg_selection)},
      {"cta_policy", offsetof(ncore_coll_config_t, cta_policy)},
  };
  char buf[64];
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (plan_object_field(text, ints[i].name, buf, sizeof buf))
      *(int32_t *)((char *)c + ints[i].offset) = (int32_t)strtol(buf, NULL, 0);
  if (plan_object_field(text, "struct_size", buf, sizeof buf))
    c->struct_size = (uint32_t)strtoul(buf, NULL, 0);
  if (plan_object_field(text, "user_profiler_tag", buf, sizeof buf))
    c->user_profiler_tag = strtoull(buf, NULL, 0);
  if (plan_object_field(text, "launch_completion_event", buf, sizeof buf))
    c->launch_completion_event = (void *)(uintptr_t)strtoull(buf, NULL, 0);
  if (plan_object_field(text, "alg_selection", selection, size))
    c->alg_selection = selection;
  return c;
}

/* Every collective row of core/op_table.h. */
ncore_status_t op_collective(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  op_call_t a = {0};
  ncore_coll_config_t config;
  char selection[64];
  a.config = coll_config_arg(step, &config, selection, sizeof selection);
  a.step = step;
  a.comm = comm_arg(r, step);
  a.send = buffer_arg(step, "send", "send_offset_per_rank", r->rank);
  a.recv = buffer_arg(step, "recv", "recv_offset_per_rank", r->rank);
  a.count = (size_t)plan_arg_int(step, "count", 0);
  a.dtype = op_dtype(step, "dtype");
  a.root = (int)plan_arg_int(step, "root", 0);
  a.stream = r->stream;
  return op_table_call(step->op, &a);
}

ncore_status_t op_signal(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  return ncore_signal(comm_arg(r, step), (int)plan_arg_int(step, "peer", 0),
                      (int)plan_arg_int(step, "signal_index", 0),
                      (int)plan_arg_int(step, "context", 0),
                      (uint32_t)plan_arg_int(step, "flags", 0), r->stream);
}

ncore_status_t op_wait_signal(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  ncore_wait_signal_desc_t descs[32];
  size_t n = 0;
  const char *text = plan_arg(step, "descs");
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", text ? text : "");
  char *save = NULL;
  for (char *obj = strtok_r(copy, ";", &save); obj && n < 32;
       obj = strtok_r(NULL, ";", &save)) {
    char buf[32];
    ncore_wait_signal_desc_init(&descs[n], sizeof descs[n]);
    if (plan_object_field(obj, "peer", buf, sizeof buf)) descs[n].peer = atoi(buf);
    if (plan_object_field(obj, "op_count", buf, sizeof buf))
      descs[n].op_count = (uint32_t)atoi(buf);
    if (plan_object_field(obj, "signal_index", buf, sizeof buf))
      descs[n].signal_index = atoi(buf);
    if (plan_object_field(obj, "context", buf, sizeof buf)) descs[n].context = atoi(buf);
    descs[n].struct_size = (uint32_t)plan_arg_int(step, "struct_size", sizeof descs[n]);
    n++;
  }
  return ncore_wait_signal(comm_arg(r, step), n ? descs : NULL, n, r->stream);
}

ncore_status_t op_put_signal(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  return ncore_put_signal(comm_arg(r, step), buffer_arg(step, "buffer", NULL, r->rank),
                          (size_t)plan_arg_int(step, "count", 0), op_dtype(step, "dtype"),
                          (int)plan_arg_int(step, "peer", 0),
                          objects_handle(plan_arg(step, "window")),
                          (size_t)plan_arg_int(step, "window_offset", 0),
                          (int)plan_arg_int(step, "signal_index", 0),
                          (int)plan_arg_int(step, "context", 0),
                          (uint32_t)plan_arg_int(step, "flags", 0), r->stream);
}

ncore_status_t op_symmetric_put(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  object_t *buf = objects_get(plan_arg(step, "buffer"));
  return ncore_symmetric_put(objects_handle(plan_arg(step, "sym")),
                             (size_t)plan_arg_int(step, "sym_offset", 0),
                             buf ? buf->ptr : NULL, (size_t)plan_arg_int(step, "bytes", 0),
                             (int)plan_arg_int(step, "pe", 0), r->stream);
}

ncore_status_t op_symmetric_get(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  object_t *buf = objects_get(plan_arg(step, "buffer"));
  return ncore_symmetric_get(buf ? buf->ptr : NULL, objects_handle(plan_arg(step, "sym")),
                             (size_t)plan_arg_int(step, "sym_offset", 0),
                             (size_t)plan_arg_int(step, "bytes", 0),
                             (int)plan_arg_int(step, "pe", 0), r->stream);
}
