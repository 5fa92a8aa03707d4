/* core — random bytes from the kernel (random_bytes.h). */
#include "random_bytes.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "error.h"

ncore_status_t core_random_bytes(void *out, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom((char *)out + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return core_error(NCORE_ERR_SYSTEM, "getrandom: %s",
                        r < 0 ? strerror(errno) : "no bytes");
    got += (size_t)r;
  }
  return NCORE_OK;
}
