/* core — the rules for versioned structs (docs/abi-policy.md): the first
 * field is uint32_t struct_size; the library accepts any size up to its own
 * (missing tail fields keep their defaults) and a larger one only if the
 * extra bytes are zero; it writes no more than the caller's size. One set of
 * helpers serves every versioned struct. */
#ifndef NCORE_CORE_VERSIONED_H
#define NCORE_CORE_VERSIONED_H

#include <stddef.h>
#include <stdint.h>
#include <ncore.h>

/* Largest struct_size accepted: a page, as Linux caps the structs of
 * sched_setattr and clone3 (copy_struct_from_user callers): a newer
 * caller's struct grows by fields, never by pages, and a larger value is a
 * garbage size that must not make the library scan gigabytes. */
#define CORE_VERSIONED_MAX_SIZE 4096u

/* Smallest struct_size accepted: struct_size itself plus the first field. */
#define CORE_VERSIONED_MIN_SIZE(type, first_field) \
  (offsetof(type, first_field) + sizeof(((type *)0)->first_field))

/* The smallest struct_size of each versioned struct: struct_size and the
 * first field, which every version has had. */
#define CORE_MIN_SIZE_COMM_CONFIG \
  CORE_VERSIONED_MIN_SIZE(ncore_comm_config_t, backend)
#define CORE_MIN_SIZE_WAIT_SIGNAL_DESC \
  CORE_VERSIONED_MIN_SIZE(ncore_wait_signal_desc_t, peer)
#define CORE_MIN_SIZE_DEV_COMM_REQUIREMENTS \
  CORE_VERSIONED_MIN_SIZE(ncore_dev_comm_requirements_t, \
                          resource_requirements_list)
#define CORE_MIN_SIZE_DEV_COMM_INFO \
  CORE_VERSIONED_MIN_SIZE(ncore_dev_comm_info_t, rank)
#define CORE_MIN_SIZE_BUFFER_DESC \
  CORE_VERSIONED_MIN_SIZE(ncore_buffer_desc_t, ptr)
#define CORE_MIN_SIZE_COMM_PROPERTIES \
  CORE_VERSIONED_MIN_SIZE(ncore_comm_properties_t, rank)
#define CORE_MIN_SIZE_COLL_CONFIG \
  CORE_VERSIONED_MIN_SIZE(ncore_coll_config_t, min_ctas)
#define CORE_MIN_SIZE_LIBRARY_INFO \
  CORE_VERSIONED_MIN_SIZE(ncore_library_info_t, abi_version)

/* The body of a public *_init(struct, struct_size): checks that theirs is
 * not NULL (argument names it) and that struct_size is at least min_size
 * and fits the uint32_t field, then writes the defaults (ours_size bytes)
 * as core_versioned_write does: exactly struct_size bytes, struct_size set
 * to the caller's, any tail beyond ours zeroed.
 * Returns NCORE_OK or INVALID_ARGUMENT (recorded; the message names
 * `argument` or "struct_size" and says what was expected). */
ncore_status_t core_versioned_init(void *theirs, size_t struct_size,
                                   const void *defaults, size_t ours_size,
                                   size_t min_size, const char *argument);

/* Copies a caller's versioned input struct into *ours, which holds the
 * defaults and is ours_size bytes: the first min(struct_size, ours_size)
 * bytes come from the caller; ours->struct_size becomes ours_size.
 * argument: the parameter name for messages ("config", "requirements").
 * Returns NCORE_OK or INVALID_ARGUMENT (recorded): struct_size below
 * min_size or above CORE_VERSIONED_MAX_SIZE, or larger than ours_size with
 * non-zero extra bytes. */
ncore_status_t core_versioned_read(void *ours, size_t ours_size,
                                   const void *theirs, size_t min_size,
                                   const char *argument);

/* Checks a caller's versioned output struct's struct_size (>= min_size,
 * <= CORE_VERSIONED_MAX_SIZE; larger than ours is fine) and returns it in
 * *size. */
ncore_status_t core_versioned_check_out(const void *theirs, size_t min_size,
                                        size_t ours_size, const char *argument,
                                        uint32_t *size);

/* Writes our full struct (ours, ours_size bytes) into the caller's struct of
 * their_size bytes (checked by core_versioned_check_out): as many bytes as
 * both hold, the caller's struct_size kept, any tail beyond ours zeroed so a
 * newer caller reads its unknown fields as 0. */
void core_versioned_write(void *theirs, uint32_t their_size, const void *ours,
                          size_t ours_size);

#endif
