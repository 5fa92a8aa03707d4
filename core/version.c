/* core — library and ABI version (ncore/version.h). */
#include <ncore.h>

#define CORE_STRINGIFY_INNER(x) #x
#define CORE_STRINGIFY(x) CORE_STRINGIFY_INNER(x)

/* NCORE_ABI_VERSION as this library was built; a binding compares it with
 * the value it was compiled against. */
NCORE_API uint32_t ncore_abi_version(void) { return NCORE_ABI_VERSION; }

/* "MAJOR.MINOR.PATCH", built from the header's macros so they cannot drift. */
NCORE_API const char *ncore_version_string(void) {
  return CORE_STRINGIFY(NCORE_VERSION_MAJOR) "." CORE_STRINGIFY(
      NCORE_VERSION_MINOR) "." CORE_STRINGIFY(NCORE_VERSION_PATCH);
}
