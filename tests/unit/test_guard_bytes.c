/* Unit tests: no call writes past the caller's struct.
 *
 * A client compiled against an older header has a smaller versioned struct,
 * one compiled against a newer header a larger one; each passes its own
 * size (the struct_size argument of a *_init, the struct_size field of an
 * output struct). Here the struct is followed by guard bytes, and every
 * *_init and every call that fills a caller's struct runs at every size from
 * the smallest the library accepts to beyond its own. After each call the
 * guard bytes must be intact, struct_size must be the caller's, the bytes
 * beyond the library's own struct must be zero, and an init must have
 * written the same defaults a full-size init writes. A refused size writes
 * nothing at all.
 *
 * tools/api-coverage checks that every public function writing a versioned
 * struct is exercised here (a WRITER row below). */
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "unit_comm.h"

#define GUARD_BYTES 64
#define GUARD 0xa5
/* How far beyond the library's struct a "newer client" goes. */
#define NEWER_EXTRA 16

/* Calls one writer on the struct at p whose size, as the caller knows it,
 * is `size`; for an output struct, struct_size is already set to size. */
typedef ncore_status_t (*writer_call_t)(void *p, size_t size);

typedef struct writer {
  const char *function;
  writer_call_t call;
  size_t min_size;  /* the smallest size the library accepts */
  size_t full_size; /* sizeof of the struct in this build */
  int is_init;      /* size is an argument (else the struct_size field) */
} writer_t;

/* State some writers need, set up by their test before check_writer. */
static ncore_dev_comm_t the_dev_comm;
static ncore_comm_t the_comm;
static float the_data[4];

static ncore_status_t call_comm_config_init(void *p, size_t size) {
  return ncore_comm_config_init((ncore_comm_config_t *)p, size);
}
static ncore_status_t call_wait_signal_desc_init(void *p, size_t size) {
  return ncore_wait_signal_desc_init((ncore_wait_signal_desc_t *)p, size);
}
static ncore_status_t call_coll_config_init(void *p, size_t size) {
  return ncore_coll_config_init((ncore_coll_config_t *)p, size);
}
static ncore_status_t call_dev_comm_requirements_init(void *p, size_t size) {
  return ncore_dev_comm_requirements_init((ncore_dev_comm_requirements_t *)p,
                                          size);
}
static ncore_status_t call_dev_comm_info(void *p, size_t size) {
  (void)size;
  return ncore_dev_comm_info(the_dev_comm, (ncore_dev_comm_info_t *)p);
}
static ncore_team_t the_team;
static ncore_status_t call_dev_comm_resource_handle(void *p, size_t size) {
  (void)size;
  return ncore_dev_comm_resource_handle(the_dev_comm, 0,
                                        (ncore_dev_resource_handle_t *)p);
}
static ncore_status_t call_dev_comm_multimem_handle(void *p, size_t size) {
  (void)size;
  return ncore_dev_comm_multimem_handle(the_dev_comm, &the_team,
                                        (ncore_multimem_handle_t *)p);
}
static ncore_status_t call_comm_properties(void *p, size_t size) {
  (void)size;
  return ncore_comm_properties(the_comm, (ncore_comm_properties_t *)p);
}
static ncore_status_t call_library_info(void *p, size_t size) {
  (void)size;
  return ncore_library_info((ncore_library_info_t *)p);
}
static ncore_status_t call_buffer_resolve_dlpack(void *p, size_t size) {
  (void)size;
  int64_t shape[1] = {4};
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = the_data;
  t.device.device_type = kDLCPU;
  t.ndim = 1;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  /* dlpack.h's DLTensor is an anonymous struct: C callers cast. */
  return ncore_buffer_resolve_dlpack((ncore_buffer_desc_t *)p,
                                     (const struct DLTensor *)(const void *)&t);
}
static ncore_status_t call_buffer_resolve_array_interface(void *p,
                                                          size_t size) {
  (void)size;
  int64_t shape[1] = {4};
  return ncore_buffer_resolve_array_interface(
      (ncore_buffer_desc_t *)p, (uintptr_t)the_data, 1, shape, NULL, "<f4", -1);
}

#define MIN_SIZE(type, first) (offsetof(type, first) + sizeof(((type *)0)->first))
#define WRITER(function, type, first, is_init) \
  {#function, call_##function, MIN_SIZE(type, first), sizeof(type), is_init}

static const writer_t comm_config_init =
    WRITER(comm_config_init, ncore_comm_config_t, backend, 1);
static const writer_t wait_signal_desc_init =
    WRITER(wait_signal_desc_init, ncore_wait_signal_desc_t, peer, 1);
static const writer_t coll_config_init =
    WRITER(coll_config_init, ncore_coll_config_t, min_ctas, 1);
static const writer_t dev_comm_requirements_init =
    WRITER(dev_comm_requirements_init, ncore_dev_comm_requirements_t,
           resource_requirements_list, 1);
static const writer_t dev_comm_info =
    WRITER(dev_comm_info, ncore_dev_comm_info_t, rank, 0);
static const writer_t dev_comm_resource_handle =
    WRITER(dev_comm_resource_handle, ncore_dev_resource_handle_t, kind, 0);
static const writer_t dev_comm_multimem_handle =
    WRITER(dev_comm_multimem_handle, ncore_multimem_handle_t, mc_base_pointer, 0);
static const writer_t comm_properties =
    WRITER(comm_properties, ncore_comm_properties_t, rank, 0);
static const writer_t library_info =
    WRITER(library_info, ncore_library_info_t, abi_version, 0);
static const writer_t buffer_resolve_dlpack =
    WRITER(buffer_resolve_dlpack, ncore_buffer_desc_t, ptr, 0);
static const writer_t buffer_resolve_array_interface =
    WRITER(buffer_resolve_array_interface, ncore_buffer_desc_t, ptr, 0);

/* A client's struct of `size` bytes followed by the guard, as one block
 * (malloc'd, so aligned for any field). */
typedef struct client {
  unsigned char *bytes;
  size_t size, total;
} client_t;

static int client_make(client_t *c, size_t size) {
  c->size = size;
  c->total = size + GUARD_BYTES;
  c->bytes = malloc(c->total);
  if (c->bytes == NULL) return 0;
  memset(c->bytes, GUARD, c->total);
  return 1;
}

static uint32_t client_struct_size(const client_t *c) {
  uint32_t v;
  memcpy(&v, c->bytes, sizeof v);
  return v;
}

/* Offset of the first byte in [from, to) that is not `value`, or `to`. */
static size_t first_not(const unsigned char *bytes, size_t from, size_t to,
                        unsigned char value) {
  for (size_t i = from; i < to; i++)
    if (bytes[i] != value) return i;
  return to;
}

/* Runs w at one size; reference: a full-size init's bytes (NULL for an
 * output call). */
static void check_size(const writer_t *w, size_t size,
                       const unsigned char *reference) {
  client_t c;
  CHECK(client_make(&c, size));
  if (!w->is_init) {
    uint32_t s = (uint32_t)size;
    memcpy(c.bytes, &s, sizeof s);
  }
  ncore_status_t status = w->call(c.bytes, size);
  if (status != NCORE_OK) {
    harness_fail(__FILE__, __LINE__, "ncore_%s at size %zu: %s (\"%s\")",
                 w->function, size, ncore_status_string(status),
                 ncore_last_error_message());
    free(c.bytes);
    return;
  }
  size_t bad = first_not(c.bytes, size, c.total, GUARD);
  size_t known = size < w->full_size ? size : w->full_size;
  size_t tail = first_not(c.bytes, known, size, 0);
  size_t differs = known;
  if (reference != NULL)
    for (size_t i = sizeof(uint32_t); i < known && differs == known; i++)
      if (c.bytes[i] != reference[i]) differs = i;
  uint32_t got_size = client_struct_size(&c);
  free(c.bytes);
  if (bad != size + GUARD_BYTES)
    harness_fail(__FILE__, __LINE__,
                 "ncore_%s at size %zu wrote guard byte %zu (struct + %zu)",
                 w->function, size, bad, bad - size);
  else if (got_size != size)
    harness_fail(__FILE__, __LINE__,
                 "ncore_%s at size %zu: struct_size became %u", w->function,
                 size, got_size);
  else if (tail != size)
    harness_fail(__FILE__, __LINE__,
                 "ncore_%s at size %zu: byte %zu beyond the library's %zu "
                 "bytes is not zero", w->function, size, tail, w->full_size);
  else if (differs != known)
    harness_fail(__FILE__, __LINE__,
                 "ncore_%s at size %zu: byte %zu differs from a full-size "
                 "init", w->function, size, differs);
}

/* A refused call writes nothing: the whole block keeps its bytes. */
static void check_refused(const writer_t *w, size_t size, const char *message) {
  client_t c;
  CHECK(client_make(&c, w->full_size));
  uint32_t s = (uint32_t)size;
  if (!w->is_init) memcpy(c.bytes, &s, sizeof s);
  unsigned char *before = malloc(c.total);
  CHECK(before != NULL);
  memcpy(before, c.bytes, c.total);
  ncore_status_t status = w->call(c.bytes, size);
  int same = memcmp(before, c.bytes, c.total) == 0;
  free(before);
  free(c.bytes);
  CHECK_EQ(status, NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS(message);
  CHECK(same);
}

/* Every size from the smallest accepted to NEWER_EXTRA beyond the library's
 * own, in 4-byte steps (every field is a multiple of 4 bytes). */
static void check_writer(const writer_t *w) {
  unsigned char *reference = NULL;
  if (w->is_init) {
    reference = malloc(w->full_size);
    CHECK(reference != NULL);
    ncore_status_t status = w->call(reference, w->full_size);
    if (status != NCORE_OK) {
      free(reference);
      CHECK_OK(status);
    }
  }
  size_t sizes = 0;
  for (size_t size = w->min_size; size <= w->full_size + NEWER_EXTRA;
       size += 4, sizes++) {
    check_size(w, size, reference);
    if (harness_failed()) break;
  }
  free(reference);
  if (harness_failed()) return;
  CHECK(sizes >= 2);
  /* Too small: refused before anything is written. */
  check_refused(w, w->min_size - 1, "struct_size");
  if (harness_failed()) return;
  /* Too large (more than a page, which every reader refuses): refused. */
  if (w->is_init) check_refused(w, 4097, "struct_size");
  if (harness_failed()) return;
  if (w->is_init) check_refused(w, (size_t)UINT32_MAX + 1, "struct_size");
}

/* ---- the *_init functions ---- */

TEST(comm_config_init_writes_only_the_callers_size) {
  check_writer(&comm_config_init);
}

TEST(wait_signal_desc_init_writes_only_the_callers_size) {
  check_writer(&wait_signal_desc_init);
}

TEST(coll_config_init_writes_only_the_callers_size) {
  check_writer(&coll_config_init);
}

TEST(dev_comm_requirements_init_writes_only_the_callers_size) {
  check_writer(&dev_comm_requirements_init);
}

TEST(init_functions_name_a_null_struct) {
  CHECK_STATUS(ncore_comm_config_init(NULL, sizeof(ncore_comm_config_t)),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_config_init: config: must not be NULL");
  CHECK_STATUS(ncore_wait_signal_desc_init(NULL, sizeof(ncore_wait_signal_desc_t)),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_wait_signal_desc_init: desc: must not be NULL");
  CHECK_STATUS(ncore_coll_config_init(NULL, sizeof(ncore_coll_config_t)),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_coll_config_init: config: must not be NULL");
  CHECK_STATUS(ncore_dev_comm_requirements_init(
                   NULL, sizeof(ncore_dev_comm_requirements_t)),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS(
      "ncore_dev_comm_requirements_init: requirements: must not be NULL");
}

TEST(init_struct_size_zero_names_the_argument) {
  ncore_comm_config_t config;
  CHECK_STATUS(ncore_comm_config_init(&config, 0), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_config_init: struct_size: 0 is too small");
}

/* ---- calls that fill a caller's output struct ---- */

TEST(dev_comm_info_writes_only_the_callers_size) {
  UNIT_COMM(comm);
  CHECK_OK(ncore_create_dev_comm(&the_dev_comm, comm, NULL));
  check_writer(&dev_comm_info);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* The handles exist only where the backend has device resources and, for
 * the multimem handle, NVLink multicast: tests/fake_nccl/run.sh runs these
 * on the NCCL test double, which has both. */
static void check_dev_comm_handle_writer(const writer_t *w, int multimem) {
  if (harness_is_host())
    SKIP("the host backend makes no resource or multimem handles: "
         "tests/fake_nccl/run.sh runs this on the NCCL test double");
  UNIT_COMM(comm);
  CHECK_OK(ncore_comm_team_world(comm, &the_team));
  ncore_dev_resource_requirement_t res = NCORE_DEV_RESOURCE_REQUIREMENT_INIT;
  res.kind = NCORE_DEV_RESOURCE_LL_A2A;
  res.n_blocks = 1;
  res.max_elements = 4;
  res.max_element_size = 8;
  ncore_team_requirement_t team = NCORE_TEAM_REQUIREMENT_INIT;
  team.team = the_team;
  team.multimem = multimem;
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.resources = &res;
  req.resource_count = 1;
  req.teams = &team;
  req.team_count = 1;
  ncore_status_t created = ncore_create_dev_comm(&the_dev_comm, comm, &req);
  if (multimem && created == NCORE_ERR_NOT_SUPPORTED) {
    /* No NVLink multicast here (NCCL_NVLS_ENABLE=0, or no NVSwitch): the
     * refusal is documented; the writer is checked on the test double. */
    harness_skip("%s", ncore_last_error_message());
    CHECK_OK(ncore_comm_destroy(comm));
    return;
  }
  CHECK_OK(created);
  check_writer(w);
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(dev_comm_resource_handle_writes_only_the_callers_size) {
  check_dev_comm_handle_writer(&dev_comm_resource_handle, 0);
}

TEST(dev_comm_multimem_handle_writes_only_the_callers_size) {
  check_dev_comm_handle_writer(&dev_comm_multimem_handle, 1);
}

TEST(comm_properties_writes_only_the_callers_size) {
  UNIT_COMM(comm);
  the_comm = comm;
  check_writer(&comm_properties);
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(library_info_writes_only_the_callers_size) {
  check_writer(&library_info);
}

TEST(buffer_resolve_dlpack_writes_only_the_callers_size) {
  check_writer(&buffer_resolve_dlpack);
}

TEST(buffer_resolve_array_interface_writes_only_the_callers_size) {
  check_writer(&buffer_resolve_array_interface);
}

/* The unique id is not versioned: exactly its 128 bytes. */
TEST(get_unique_id_writes_only_its_bytes) {
  client_t c;
  CHECK(client_make(&c, sizeof(ncore_unique_id_t)));
  ncore_status_t status =
      ncore_get_unique_id((ncore_unique_id_t *)(void *)c.bytes, NCORE_BACKEND_HOST);
  size_t bad = first_not(c.bytes, c.size, c.total, GUARD);
  free(c.bytes);
  CHECK_OK(status);
  CHECK_EQ(bad, c.total);
}

HARNESS_MAIN
