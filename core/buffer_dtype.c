/* core — mapping framework element types to ncore dtypes: DLPack's
 * (code, bits, lanes) and NumPy's array-interface type strings
 * (ncore_dtype_from_dlpack, ncore_dtype_from_typestr; ncore/buffer.h). */
#include <stdlib.h>
#include <string.h>

#include "buffer_dtype.h"
#include "error.h"

/* DLPack type codes (dlpack.h; 6 and up since DLPack 1.0). */
enum {
  DL_INT = 0,
  DL_UINT = 1,
  DL_FLOAT = 2,
  DL_BFLOAT = 4,
  DL_COMPLEX = 5,
  DL_BOOL = 6,
  DL_FLOAT8_E4M3 = 8,   /* IEEE-like, with infinities: not NCCL's */
  DL_FLOAT8_E4M3FN = 10,
  DL_FLOAT8_E5M2 = 12
};

ncore_status_t core_dtype_from_dlpack(uint8_t code, uint8_t bits,
                                      uint16_t lanes, const char *argument,
                                      ncore_dtype_t *out) {
  if (lanes != 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: vector types (lanes = %u) have no ncore equivalent "
                      "(expected lanes = 1)", argument, (unsigned)lanes);
  int found = -1;
  const char *kind = NULL;
  switch (code) {
    case DL_INT:
      kind = "int";
      found = bits == 8 ? NCORE_INT8 : bits == 32 ? NCORE_INT32
            : bits == 64 ? NCORE_INT64 : -1;
      break;
    case DL_UINT:
      kind = "uint";
      found = bits == 8 ? NCORE_UINT8 : bits == 32 ? NCORE_UINT32
            : bits == 64 ? NCORE_UINT64 : -1;
      break;
    case DL_FLOAT:
      kind = "float";
      found = bits == 16 ? NCORE_FLOAT16 : bits == 32 ? NCORE_FLOAT32
            : bits == 64 ? NCORE_FLOAT64 : -1;
      break;
    case DL_BFLOAT:
      kind = "bfloat";
      found = bits == 16 ? NCORE_BFLOAT16 : -1;
      break;
    case DL_FLOAT8_E4M3FN:
      kind = "float8_e4m3fn";
      found = bits == 8 ? NCORE_FLOAT8E4M3 : -1;
      break;
    case DL_FLOAT8_E5M2:
      kind = "float8_e5m2";
      found = bits == 8 ? NCORE_FLOAT8E5M2 : -1;
      break;
    case DL_BOOL:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: bool has no ncore equivalent; view the buffer as "
                        "uint8", argument);
    case DL_COMPLEX:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: complex%u has no ncore equivalent; view it as "
                        "float%u with twice the count", argument,
                        (unsigned)bits, (unsigned)bits / 2);
    case DL_FLOAT8_E4M3:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: float8_e4m3 (DLPack code 8, with infinities) has "
                        "no ncore equivalent; ncore's float8_e4m3 is OCP "
                        "e4m3fn (DLPack code 10)", argument);
    default:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: DLPack type code %u (%u bits) has no ncore "
                        "equivalent", argument, (unsigned)code, (unsigned)bits);
  }
  if (found < 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %s%u has no ncore equivalent", argument, kind,
                      (unsigned)bits);
  *out = (ncore_dtype_t)found;
  return NCORE_OK;
}

ncore_status_t core_dtype_from_typestr(const char *typestr,
                                       const char *argument,
                                       ncore_dtype_t *out) {
  if (typestr == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: must not be NULL",
                      argument);
  /* "<f4": byte order, kind, item size in bytes (NumPy array interface). */
  size_t length = strlen(typestr);
  char *end = NULL;
  long size = length >= 3 ? strtol(typestr + 2, &end, 10) : 0;
  if (length < 3 || end == NULL || *end != '\0' || size <= 0 ||
      strchr("<>|=", typestr[0]) == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: \"%s\" is not an array-interface type string",
                      argument, typestr);
  /* Only native (little-endian) data: '>' is big-endian unless 1 byte. */
  if (typestr[0] == '>' && size != 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: \"%s\" is big-endian; only little-endian data is "
                      "supported", argument, typestr);
  int found = -1;
  switch (typestr[1]) {
    case 'i':
      found = size == 1 ? NCORE_INT8 : size == 4 ? NCORE_INT32
            : size == 8 ? NCORE_INT64 : -1;
      break;
    case 'u':
      found = size == 1 ? NCORE_UINT8 : size == 4 ? NCORE_UINT32
            : size == 8 ? NCORE_UINT64 : -1;
      break;
    case 'f':
      found = size == 2 ? NCORE_FLOAT16 : size == 4 ? NCORE_FLOAT32
            : size == 8 ? NCORE_FLOAT64 : -1;
      break;
    case 'b':
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: \"%s\" is bool, which has no ncore equivalent; "
                        "view the buffer as uint8", argument, typestr);
    case 'c':
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: \"%s\" is complex, which has no ncore equivalent",
                        argument, typestr);
    default:
      break;
  }
  if (found < 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: \"%s\" has no ncore equivalent", argument, typestr);
  *out = (ncore_dtype_t)found;
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_dtype_from_dlpack(uint8_t code, uint8_t bits,
                                                 uint16_t lanes,
                                                 ncore_dtype_t *out) {
  CORE_ENTER("ncore_dtype_from_dlpack");
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  return core_dtype_from_dlpack(code, bits, lanes, "dtype", out);
}

NCORE_API ncore_status_t ncore_dtype_from_typestr(const char *typestr,
                                                  ncore_dtype_t *out) {
  CORE_ENTER("ncore_dtype_from_typestr");
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  return core_dtype_from_typestr(typestr, "typestr", out);
}
