/* ncore — library and ABI version.
 *
 * A binding compares ncore_abi_version() with the NCORE_ABI_VERSION it was
 * built against: the major part must match and the loaded minor part must be
 * at least the compiled one (new functions only ever appear in new minors). */
#ifndef NCORE_VERSION_H
#define NCORE_VERSION_H

#include <stdint.h>
#include "export.h"

NCORE_BEGIN_DECLS

#define NCORE_VERSION_MAJOR 1
#define NCORE_VERSION_MINOR 2
#define NCORE_VERSION_PATCH 0

/* ABI version as major * 10000 + minor * 100: NCORE_1.0 is 10000.
 * It matches the newest symbol-version node of abi/ncore.map. */
#define NCORE_ABI_VERSION 10200

/* Returns the ABI version of the loaded library (NCORE_ABI_VERSION as the
 * library was built). Cannot fail; one of the few functions that returns its
 * result directly rather than a status. */
NCORE_API uint32_t ncore_abi_version(void);

/* Returns the library version as a static string, "MAJOR.MINOR.PATCH".
 * The string is owned by the library and lives as long as the process.
 * Cannot fail. */
NCORE_API const char *ncore_version_string(void);

NCORE_END_DECLS

#endif /* NCORE_VERSION_H */
