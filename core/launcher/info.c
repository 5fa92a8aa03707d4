/* core/launcher — `ncore-run --info`: ncore_library_info in one line, as
 * `python -m mpi4py --version` or torch.utils.collect_env answer for theirs,
 * to paste into a bug report:
 *   ncore 1.1.0 (ABI 10100); host backend: NCORE_BACKEND=host; NCCL not
 *   loaded: <why>; CUDA devices: 0
 * The facts are the library's (ncore_library_info); where it loaded no
 * libnccl, asking for the NCCL backend (ncore_backend_resolve) says why. */
#include "info.h"

#include <string.h>

#include <ncore.h>

/* text after a leading "ncore_<call>: ", the prefix every message has. */
static const char *without_call(const char *text) {
  const char *colon = strstr(text, ": ");
  return strncmp(text, "ncore_", 6) == 0 && colon != NULL ? colon + 2 : text;
}

int launcher_print_info(FILE *to) {
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  if (ncore_library_info(&info) != NCORE_OK) {
    fprintf(stderr, "ncore-run: --info: %s\n", ncore_last_error_message());
    return 1;
  }
  const char *backend = info.backend == NCORE_BACKEND_HOST   ? "host backend"
                        : info.backend == NCORE_BACKEND_NCCL ? "nccl backend"
                                                             : "no backend";
  fprintf(to, "ncore %s (ABI %u); %s: %s; ", info.version,
          (unsigned)info.abi_version, backend, info.backend_reason);
  if (info.nccl_path[0] != '\0') {
    fprintf(to, "NCCL %d.%d.%d from %s", info.nccl_version / 10000,
            info.nccl_version / 100 % 100, info.nccl_version % 100,
            info.nccl_path);
  } else {
    ncore_backend_t nccl;
    const char *why = ncore_backend_resolve(NCORE_BACKEND_NCCL, &nccl) != NCORE_OK
                          ? without_call(ncore_last_error_message())
                          : "";
    /* The backend's reason may have said it already. */
    if (why[0] == '\0' || strstr(info.backend_reason, why) != NULL)
      fprintf(to, "NCCL not loaded");
    else
      fprintf(to, "NCCL not loaded: %s", why);
  }
  fprintf(to, "; CUDA devices: %d\n", (int)info.cuda_device_count);
  return 0;
}
