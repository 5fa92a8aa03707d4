/* kernels/fatbin.h — the CUDA kernels of kernels/ncore_kernels.cu, compiled by
 * nvcc into one fatbin (sm_90 SASS + compute_90 PTX) and embedded in
 * libncore.so by the build (BUILD: genrule "kernels_fatbin", written by
 * tools/embed_binary.sh), so the library needs no file and no CUDA library at
 * link time. The NCCL backend hands core_kernels_fatbin to cuModuleLoadData. */
#ifndef NCORE_KERNELS_FATBIN_H
#define NCORE_KERNELS_FATBIN_H

#include <stddef.h>

/* The fatbin's bytes, 8-byte aligned as cuModuleLoadData wants. */
extern const unsigned char core_kernels_fatbin[];
/* Its length in bytes. */
extern const size_t core_kernels_fatbin_size;

#endif /* NCORE_KERNELS_FATBIN_H */
