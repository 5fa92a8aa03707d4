/* core/nccl — the NCCL backend's part of ncore_library_info. */
#ifndef NCORE_CORE_NCCL_INFO_H
#define NCORE_CORE_NCCL_INFO_H

#include "../backend.h"

/* ---- backend operation (core/backend.h: describe) ---- */
void nccl_describe(ncore_library_info_t *out);

#endif
