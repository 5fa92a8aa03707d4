/* core — versioned-struct reading and writing (core/versioned.h). */
#include <string.h>

#include "error.h"
#include "versioned.h"

static uint32_t read_struct_size(const void *s) {
  uint32_t size;
  memcpy(&size, s, sizeof size);
  return size;
}

/* Records the message of a struct_size below the smallest accepted. */
static ncore_status_t size_error(const char *argument, uint32_t size,
                                 size_t min_size, size_t ours_size,
                                 const char *why) {
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: struct_size %u is invalid (expected %zu..%zu%s)",
                    argument, size, min_size, ours_size, why);
}

/* Records the message of a struct_size above CORE_VERSIONED_MAX_SIZE. */
static ncore_status_t too_large(const char *argument, uint32_t size) {
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: struct_size %u is invalid (more than %u bytes)",
                    argument, size, CORE_VERSIONED_MAX_SIZE);
}

ncore_status_t core_versioned_read(void *ours, size_t ours_size,
                                   const void *theirs, size_t min_size,
                                   const char *argument) {
  uint32_t size = read_struct_size(theirs);
  if (size < min_size) return size_error(argument, size, min_size, ours_size, "");
  if (size > CORE_VERSIONED_MAX_SIZE) return too_large(argument, size);
  if (size > ours_size) {
    /* A newer caller: its extra fields must all be at their zero default,
     * or it asks for something this library cannot do. */
    const unsigned char *extra = (const unsigned char *)theirs + ours_size;
    for (size_t i = 0; i < size - ours_size; i++)
      if (extra[i] != 0)
        return core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "%s: struct_size %u is invalid (expected <= %zu, or "
                          "larger with only zero bytes beyond %zu; byte %zu "
                          "is not zero)", argument, size, ours_size, ours_size,
                          ours_size + i);
  }
  size_t copy = size < ours_size ? size : ours_size;
  memcpy(ours, theirs, copy);
  uint32_t full = (uint32_t)ours_size;
  memcpy(ours, &full, sizeof full);
  return NCORE_OK;
}

ncore_status_t core_versioned_check_out(const void *theirs, size_t min_size,
                                        size_t ours_size, const char *argument,
                                        uint32_t *size) {
  *size = read_struct_size(theirs);
  if (*size < min_size)
    return size_error(argument, *size, min_size, ours_size,
                      ", or larger");
  if (*size > CORE_VERSIONED_MAX_SIZE) return too_large(argument, *size);
  return NCORE_OK;
}

ncore_status_t core_versioned_init(void *theirs, size_t struct_size,
                                   const void *defaults, size_t ours_size,
                                   size_t min_size, const char *argument) {
  if (theirs == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: must not be NULL",
                      argument);
  if (struct_size < min_size)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "struct_size: %zu is too small (expected the caller's "
                      "sizeof of the struct: at least %zu, this library's is "
                      "%zu)", struct_size, min_size, ours_size);
  /* Every call that takes the struct refuses more than a page, so an init
   * must not make one (nor write gigabytes for a mistaken size). */
  if (struct_size > CORE_VERSIONED_MAX_SIZE)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "struct_size: %zu is invalid (more than %u bytes; "
                      "expected the caller's sizeof of the struct)",
                      struct_size, CORE_VERSIONED_MAX_SIZE);
  core_versioned_write(theirs, (uint32_t)struct_size, defaults, ours_size);
  return NCORE_OK;
}

void core_versioned_write(void *theirs, uint32_t their_size, const void *ours,
                          size_t ours_size) {
  size_t copy = their_size < ours_size ? their_size : ours_size;
  memcpy(theirs, ours, copy);
  if (their_size > ours_size)
    memset((unsigned char *)theirs + ours_size, 0, their_size - ours_size);
  memcpy(theirs, &their_size, sizeof their_size);
}
