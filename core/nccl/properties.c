/* core/nccl — ncclCommQueryProperties in the loaded version's layout
 * (nccl_layout_t.properties_*). */
#include "properties.h"

#include <string.h>

ncore_status_t nccl_query_properties(nccl_comm_t *c,
                                     ncore_comm_properties_t *out) {
  const nccl_layout_t *layout = nccl_layout();
  /* Room past the layout ncore passes: an NCCL that wrote beyond `size`
   * (its own newer fields) would land here, not on the stack around. */
  struct {
    nccl_comm_properties_t props;
    char spare[256];
  } buffer;
  nccl_comm_properties_t *props = &buffer.props;
  memset(&buffer, 0, sizeof buffer);
  props->size = layout->properties_size;
  props->magic = NCORE_NCCL_API_MAGIC;
  props->version = (unsigned)nccl_struct_version_upto(
      NCORE_NCCL_PROPERTIES_NEWEST_KNOWN);
  ncore_status_t status = nccl_check(
      nccl_fn.ncclCommQueryProperties(c->nccl, props),
      "ncclCommQueryProperties", c->nccl);
  if (status != NCORE_OK) return status;
  out->nvml_device = props->nvmlDev;
  out->device_api_support = props->deviceApiSupport;
  out->multimem_support = props->multimemSupport;
  if (layout->properties_gin_type_byte) {
    /* 2.29.2-2.29.4: a one-byte ginType right after multimemSupport, and
     * nothing after it. */
    unsigned char gin = 0;
    memcpy(&gin, (const char *)props + 34, 1);
    out->gin_type = gin;
    out->railed_gin_type = NCORE_GIN_TYPE_NONE;
    /* No hostRmaSupport yet: the one-sided calls exist (2.29.2). */
    out->host_rma_support = c->native_onesided;
    return NCORE_OK;
  }
  out->gin_type = props->ginType;
  out->railed_gin_type = props->railedGinType;
  out->n_lsa_teams = props->nLsaTeams;
  out->host_rma_support = props->hostRmaSupport && c->native_onesided;
  if (props->version >= (unsigned)NCORE_NCCL_VERSION(2, 31, 0)) {
    out->comm_hash = props->commHash;
    out->gin_min_stride = props->ginMinStride;
    out->gin_connection_type = props->ginConnectionType;
    out->available_gin_types = 0;
    for (unsigned t = 0; t < 64; t++)
      if (props->ginSupport[t]) out->available_gin_types |= 1ull << t;
    out->dev_comm_runtime_version_size = props->devCommRuntimeVersionSize;
  }
  /* 2.32 reports CFT support in a layout ncore does not know yet: unknown,
   * not "no" (ncore/comm_control.h). */
  if (nccl_runtime_version() >= NCORE_NCCL_VERSION(2, 32, 0))
    out->cft_support = out->cft_multicast_support =
        out->cft_counted_support = -1;
  return NCORE_OK;
}
