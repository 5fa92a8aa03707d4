/* tests/harness — communication buffers and element values that work on
 * both backends.
 *
 * Tests never touch communication memory directly: on the NCCL backend it is
 * device memory. tb_alloc gets memory with ncore_mem_alloc of the resolved
 * backend; tb_put / tb_get copy to and from it (and synchronise).
 * td_encode / td_decode convert between double and each of the twelve dtypes
 * independently of the library, so expected values are not computed by the
 * code under test. */
#ifndef NCORE_TESTS_TESTBUF_H
#define NCORE_TESTS_TESTBUF_H

#include <stddef.h>
#include <stdint.h>

#include <ncore.h>

/* bytes of zeroed communication memory, or NULL (failure recorded). */
void *tb_alloc(size_t bytes);
/* Frees memory from tb_alloc (NULL ignored; failure recorded). */
void tb_free(void *ptr);
/* Copies host memory into communication memory and synchronises. */
void tb_put(void *dst, const void *host_src, size_t bytes);
/* Copies communication memory into host memory and synchronises. */
void tb_get(void *host_dst, const void *src, size_t bytes);

#define TD_DTYPE_COUNT 12
/* Element size of dtype (0 if unknown). */
size_t td_size(ncore_dtype_t dtype);
/* 1 for the integer dtypes. */
int td_is_integer(ncore_dtype_t dtype);
/* Explicit mantissa bits of a floating dtype (float16 10, bfloat16 7,
 * float8 e4m3 3, e5m2 2, float32 23, float64 52); 0 for integers. */
int td_mantissa_bits(ncore_dtype_t dtype);
/* Decodes one element to double (exact for every dtype but 64-bit integers
 * beyond 2^53). */
double td_decode(ncore_dtype_t dtype, const void *element);
/* Encodes v into one element. Exact for values the type represents; others
 * are truncated toward zero for the float8/16 types (tests only encode
 * representable values). */
void td_encode(ncore_dtype_t dtype, double v, void *element);

#endif /* NCORE_TESTS_TESTBUF_H */
