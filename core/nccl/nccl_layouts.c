/* core/nccl — the loaded NCCL's version and the layouts and calls that go
 * with it (nccl_layouts.h): one row is chosen at load time, and every
 * version-dependent decision asks nccl_layout() or nccl_require(). */
#include <stdio.h>

#include "../error.h"
#include "nccl_lib.h"

static const nccl_layout_t layouts[] = {
    NCORE_NCCL_LAYOUT_2_30, NCORE_NCCL_LAYOUT_2_29_5, NCORE_NCCL_LAYOUT_2_29_2,
    NCORE_NCCL_LAYOUT_2_28};

static int runtime_version;
static const nccl_layout_t *selected = &layouts[3];

void nccl_layouts_select(int version_code) {
  runtime_version = version_code;
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    if (version_code >= layouts[i].since) {
      selected = &layouts[i];
      return;
    }
  }
}

int nccl_runtime_version(void) { return runtime_version; }

const nccl_layout_t *nccl_layout(void) { return selected; }

int nccl_struct_version(void) {
  return runtime_version < NCORE_NCCL_NEWEST_KNOWN ? runtime_version
                                                   : NCORE_NCCL_NEWEST_KNOWN;
}

const char *nccl_version_text(int code) {
  static _Thread_local char text[32];
  /* NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z from 2.9 on. */
  snprintf(text, sizeof text, "%d.%d.%d", code / 10000, code / 100 % 100,
           code % 100);
  return text;
}

ncore_status_t nccl_require(const void *fn, int since, const char *what) {
  if (fn == NULL && runtime_version >= since) /* a build without the call */
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "%s: the loaded libnccl.so.2 (%s, NCCL %s) does not "
                      "export it", what, nccl_loaded_path(),
                      nccl_version_text(runtime_version));
  return nccl_require_version(since, what);
}

ncore_status_t nccl_require_version(int since, const char *what) {
  if (runtime_version >= since) return NCORE_OK;
  char needed[32];
  snprintf(needed, sizeof needed, "%s", nccl_version_text(since));
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "%s needs NCCL %s or newer; the loaded libnccl.so.2 (%s) "
                    "is NCCL %s", what, needed, nccl_loaded_path(),
                    nccl_version_text(runtime_version));
}
