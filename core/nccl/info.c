/* core/nccl — the NCCL backend's part of ncore_library_info: the loaded
 * libnccl (path, version), the devices, and which version-dependent calls
 * that libnccl serves, asked with nccl_require exactly as the calls ask;
 * the CUDA version it was built with, from its banner. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "info.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../error_clear.h"
#include "nccl_lib.h"

/* The feature bits and what each needs (as comm_control.c and comm.c
 * require them when called). */
static uint32_t nccl_features(void) {
  const struct {
    uint32_t bit;
    const void *fn;
    int since;
  } needs[] = {
      /* ncore's own put/signal path needs windows; the native calls of
       * 2.29.2+ are taken where present (ncore/onesided.h). */
      {NCORE_FEATURE_ONE_SIDED, (const void *)nccl_fn.ncclCommWindowRegister,
       NCORE_NCCL_VERSION(2, 27, 0)},
      {NCORE_FEATURE_REVOKE, (const void *)nccl_fn.ncclCommRevoke,
       NCORE_NCCL_VERSION(2, 28, 7)},
      {NCORE_FEATURE_GROW, (const void *)nccl_fn.ncclCommGrow,
       NCORE_NCCL_VERSION(2, 29, 2)},
      {NCORE_FEATURE_GROW, (const void *)nccl_fn.ncclCommGetUniqueId,
       NCORE_NCCL_VERSION(2, 29, 2)},
      {NCORE_FEATURE_SUSPEND, (const void *)nccl_fn.ncclCommSuspend,
       NCORE_NCCL_VERSION(2, 29, 7)},
      {NCORE_FEATURE_SUSPEND, (const void *)nccl_fn.ncclCommResume,
       NCORE_NCCL_VERSION(2, 29, 7)},
      {NCORE_FEATURE_MEM_STAT, (const void *)nccl_fn.ncclCommMemStats,
       NCORE_NCCL_VERSION(2, 29, 7)},
      {NCORE_FEATURE_SCALABLE_INIT,
       (const void *)nccl_fn.ncclCommInitRankScalable,
       NCORE_NCCL_VERSION(2, 23, 0)},
  };
  uint32_t have = 0, missing = 0;
  for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++) {
    if (nccl_require(needs[i].fn, needs[i].since, "feature") == NCORE_OK)
      have |= needs[i].bit;
    else
      missing |= needs[i].bit;
  }
  core_error_clear(); /* a missing feature is a fact, not an error */
  return have & ~missing;
}

/* The CUDA version in a "NCCL version <release>+cudaA.B" banner among
 * bytes[0, size) (src/init.cc's VERSION_STRING; nccl4py reads the same), as
 * A * 1000 + B * 10; 0 when there is none. */
static int32_t banner_cuda_version(const char *bytes, size_t size) {
  static const char prefix[] = "NCCL version ";
  const size_t prefix_size = sizeof prefix - 1;
  for (const char *at = bytes; at != NULL && (size_t)(at - bytes) < size;) {
    at = memmem(at, size - (size_t)(at - bytes), prefix, prefix_size);
    if (at == NULL) break;
    const char *p = at + prefix_size, *end = bytes + size;
    while (p < end && *p != '+' && *p != ' ' && *p != '\0' && *p != '\n') p++;
    int major = 0, minor = 0, digits = 0;
    if (end - p > 5 && memcmp(p, "+cuda", 5) == 0) {
      for (p += 5; p < end && *p >= '0' && *p <= '9' && major < 1000; p++, digits++)
        major = major * 10 + (*p - '0');
      if (digits > 0 && p < end && *p == '.') {
        for (p++, digits = 0; p < end && *p >= '0' && *p <= '9' && minor < 100; p++, digits++)
          minor = minor * 10 + (*p - '0');
        if (digits > 0) return major * 1000 + minor * 10;
      }
    }
    at += prefix_size;
  }
  return 0;
}

/* The CUDA version the libnccl at path was built with (its banner); 0 when
 * the file cannot be read or has none. */
static int32_t nccl_cuda_version(const char *path) {
  int fd = path[0] != '\0' ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0) return 0;
  struct stat st;
  int32_t version = 0;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      version = banner_cuda_version(map, (size_t)st.st_size);
      munmap(map, (size_t)st.st_size);
    }
  }
  close(fd);
  return version;
}

void nccl_describe(ncore_library_info_t *out) {
  out->features = nccl_features();
  out->nccl_version = nccl_runtime_version();
  snprintf(out->nccl_path, sizeof out->nccl_path, "%s", nccl_loaded_path());
  out->nccl_cuda_version = nccl_cuda_version(nccl_loaded_path());
  int count = 0;
  if (cu_fn.DeviceGetCount != NULL && cu_fn.DeviceGetCount(&count) == CUDA_SUCCESS)
    out->cuda_device_count = count;
}
