/* core/nccl — the loaded NCCL's version and the layouts that go with it
 * (nccl_layouts.h): one row is chosen at load time, and every
 * version-dependent decision asks nccl_layout() or nccl_require()
 * (nccl_lib.h). */
#include "nccl_layouts.h"

#include <stdio.h>

static const nccl_layout_t layouts[] = {
    NCORE_NCCL_LAYOUT_2_31, NCORE_NCCL_LAYOUT_2_30, NCORE_NCCL_LAYOUT_2_29_5,
    NCORE_NCCL_LAYOUT_2_29_2, NCORE_NCCL_LAYOUT_2_28};
#define N_LAYOUTS (sizeof layouts / sizeof layouts[0])

static int runtime_version;
static const nccl_layout_t *selected = &layouts[N_LAYOUTS - 1];

void nccl_layouts_select(int version_code) {
  runtime_version = version_code;
  for (size_t i = 0; i < N_LAYOUTS; i++) {
    if (version_code >= layouts[i].since) {
      selected = &layouts[i];
      return;
    }
  }
}

int nccl_runtime_version(void) { return runtime_version; }

const nccl_layout_t *nccl_layout(void) { return selected; }

int nccl_struct_version_upto(int newest) {
  return runtime_version < newest ? runtime_version : newest;
}

int nccl_struct_version(void) {
  return nccl_struct_version_upto(NCORE_NCCL_NEWEST_KNOWN);
}

const char *nccl_version_text(int code) {
  static _Thread_local char text[32];
  /* NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z from 2.9 on. */
  snprintf(text, sizeof text, "%d.%d.%d", code / 10000, code / 100 % 100,
           code % 100);
  return text;
}
