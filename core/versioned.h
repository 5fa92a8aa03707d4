/* core — the rules for versioned structs (docs/ARCHITECTURE.md): the first
 * field is uint32_t struct_size; the library accepts any size up to its own
 * (missing tail fields keep their defaults) and a larger one only if the
 * extra bytes are zero. One helper serves every versioned struct. */
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
