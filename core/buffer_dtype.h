/* core — framework element types to ncore dtypes, with the argument name
 * for messages (shared by the public lookups and the buffer resolvers). */
#ifndef NCORE_CORE_BUFFER_DTYPE_H
#define NCORE_CORE_BUFFER_DTYPE_H

#include <ncore.h>

/* DLPack (code, bits, lanes) -> dtype; INVALID_ARGUMENT naming the type. */
ncore_status_t core_dtype_from_dlpack(uint8_t code, uint8_t bits,
                                      uint16_t lanes, const char *argument,
                                      ncore_dtype_t *out);

/* Array-interface typestr ("<f4") -> dtype; INVALID_ARGUMENT naming it. */
ncore_status_t core_dtype_from_typestr(const char *typestr,
                                       const char *argument,
                                       ncore_dtype_t *out);

#endif
