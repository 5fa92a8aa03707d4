/* core — float16 reductions with x86's F16C conversions (vcvtph2ps /
 * vcvtps2ph, round-to-nearest-even: bit-exact with core_float_to_half except for NaN
 * payloads), used
 * by dtype_reduce.c when the CPU has them. Eight elements per step instead of
 * one scalar conversion pair: the float16 path of the host backend is
 * otherwise an order of magnitude slower than float32. */
#ifndef NCORE_CORE_DTYPE_REDUCE_F16C_H
#define NCORE_CORE_DTYPE_REDUCE_F16C_H

#include <stddef.h>
#include <stdint.h>
#include <ncore.h>

/* 1 if the running CPU has F16C and AVX (checked once). */
int core_cpu_has_f16c(void);

/* acc[i] = acc[i] op in[i] over the first count - count % 8 float16
 * elements (whole steps of eight; the caller reduces the rest); op is SUM,
 * AVG (as SUM), PROD, MAX or MIN. Returns how many elements it reduced.
 * Only call when core_cpu_has_f16c(). */
size_t core_reduce_float16_f16c(uint16_t *acc, const uint16_t *in,
                                size_t count, ncore_redop_t op);

#endif
