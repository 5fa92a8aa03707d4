/* Unit-test helper: the test doubles of tests/fake_nccl as the programs run
 * by tests/fake_nccl/run.sh see them: whether they are loaded (and as which
 * NCCL version), and what the stand-in libnccl and driver recorded. Run any
 * other way, REQUIRE_FAKE() skips, saying why. */
#ifndef NCORE_TESTS_UNIT_FAKE_DRIVER_H
#define NCORE_TESTS_UNIT_FAKE_DRIVER_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

/* The NCCL version the double pretends to be (e.g. 22907), once
 * fake_ready() said yes. */
static int version;
/* The double's record (fake_nccl_record): the value under key, or -1. */
static long long (*record)(const char *key);

/* 1 when the backend runs on the test doubles (FAKE_NCCL_VERSION and the
 * double of libnccl loaded). */
static int fake_ready(void) {
  if (record != NULL) return 1;
  const char *v = getenv("FAKE_NCCL_VERSION");
  const char *lib = getenv("NCORE_NCCL_LIBRARY");
  if (v == NULL || lib == NULL || harness_backend() != NCORE_BACKEND_NCCL)
    return 0;
  int major = 0, minor = 0, patch = 0;
  if (sscanf(v, "%d.%d.%d", &major, &minor, &patch) != 3) return 0;
  version = major * 10000 + minor * 100 + patch;
  void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
  if (h != NULL) record = (long long (*)(const char *))dlsym(h, "fake_nccl_record");
  return record != NULL;
}

/* Skips unless running against the test doubles. */
#define REQUIRE_FAKE()                                                     \
  do {                                                                     \
    if (!fake_ready())                                                     \
      SKIP("needs tests/fake_nccl/run.sh (FAKE_NCCL_VERSION and the test " \
           "double of libnccl)");                                          \
  } while (0)

/* A function of the stand-in driver (NCORE_CUDA_LIBRARY), or NULL. */
static void *driver_symbol(const char *name) {
  void *h = dlopen(getenv("NCORE_CUDA_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
  return h ? dlsym(h, name) : NULL;
}

/* The stand-in driver's count of what (fake_cuda_count), or -1. */
static inline long long driver_count(const char *what) {
  long long (*count)(const char *) =
      (long long (*)(const char *))driver_symbol("fake_cuda_count");
  return count ? count(what) : -1;
}

/* The driver lookups the stand-in driver counted (fake_cuda_lookups). */
static inline long long driver_lookups(void) {
  long long (*count)(void) = (long long (*)(void))driver_symbol("fake_cuda_lookups");
  return count ? count() : -1;
}

#endif
