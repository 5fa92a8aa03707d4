/* core/nccl — finds and loads libnccl.so.2 and libcuda.so.1 at run time,
 * resolves every entry point the backend uses into nccl_fn / cu_fn, and
 * answers whether the loaded version has a call (nccl_require).
 *
 * Search order for NCCL (README.md, "On GPUs"): NCORE_NCCL_LIBRARY
 * (a file path), the dynamic loader's own search ("libnccl.so.2"),
 * /usr/local/cuda/lib64, then the pip package nvidia-nccl-cu* inside the
 * site-packages / dist-packages of Python installs. libcuda.so.1 comes from
 * the loader path only (the driver installs it there), unless
 * NCORE_CUDA_LIBRARY names a file: a test hook, with which the tests load
 * a stand-in driver beside a stand-in libnccl (tests/fake_nccl). Loading happens once
 * (pthread_once); the outcome, including the failure message, is cached so
 * probe() stays cheap and every later call reports the same reason. */
#include "nccl_lib.h"

#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"

nccl_functions_t nccl_fn;
cuda_functions_t cu_fn;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static ncore_status_t load_status = NCORE_OK;
static char load_message[2048];
static char loaded_nccl_path[1024];

/* Glob patterns for the pip package's library (first match wins). */
static const char *const pip_patterns[] = {
    "/opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
    "/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
    "/usr/local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
    "/usr/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
    "/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2",
    "/opt/*/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
    "/opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
};

/* Appends text to the searched-paths list (bounded). */
static void note_searched(char *list, size_t cap, const char *what) {
  size_t used = strlen(list);
  if (used + 3 >= cap) return;
  snprintf(list + used, cap - used, "%s%s", used ? ", " : "", what);
}

/* Tries one candidate; on success remembers its path. */
static void *try_open(const char *path, char *searched, size_t cap) {
  note_searched(searched, cap, path);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h != NULL) snprintf(loaded_nccl_path, sizeof loaded_nccl_path, "%s", path);
  return h;
}

/* Opens libnccl.so.2 following the documented search order. */
static void *open_nccl(char *searched, size_t cap) {
  const char *env = getenv("NCORE_NCCL_LIBRARY");
  void *h = NULL;
  if (env != NULL && env[0] != '\0') {
    h = try_open(env, searched, cap);
    /* An explicit choice that fails is an error, not a reason to pick
     * another NCCL silently. */
    if (h == NULL) return NULL;
    return h;
  }
  if ((h = try_open("libnccl.so.2", searched, cap)) != NULL) return h;
  if ((h = try_open("/usr/local/cuda/lib64/libnccl.so.2", searched, cap)))
    return h;
  for (size_t i = 0; i < sizeof pip_patterns / sizeof pip_patterns[0]; i++) {
    glob_t g;
    note_searched(searched, cap, pip_patterns[i]);
    if (glob(pip_patterns[i], 0, NULL, &g) == 0) {
      for (size_t j = 0; j < g.gl_pathc && h == NULL; j++) {
        h = dlopen(g.gl_pathv[j], RTLD_NOW | RTLD_LOCAL);
        if (h != NULL)
          snprintf(loaded_nccl_path, sizeof loaded_nccl_path, "%s",
                   g.gl_pathv[j]);
      }
      globfree(&g);
      if (h != NULL) return h;
    }
  }
  return NULL;
}

/* Resolves one symbol; a missing required one fails the load. */
static int resolve(void *lib, const char *name, void **slot, int required,
                   const char *libname) {
  dlerror();
  *slot = dlsym(lib, name);
  if (*slot == NULL && required) {
    int is_nccl = strcmp(libname, "libnccl.so.2") == 0;
    snprintf(load_message, sizeof load_message,
             "%s%s%s%s lacks the required symbol %s (too old?)", libname,
             is_nccl ? " (" : "", is_nccl ? loaded_nccl_path : "",
             is_nccl ? ")" : "", name);
    return 0;
  }
  return 1;
}

#define NCCL_RESOLVE_TYPED(name, required) \
  resolve(lib, #name, (void **)&nccl_fn.name, required, "libnccl.so.2") &&
#define NCCL_RESOLVE_DECLARED(name, required, ...) \
  NCCL_RESOLVE_TYPED(name, required)
#define NCCL_RESOLVE_COLL(name, KIND, nccl, ...)                            \
  resolve(lib, #nccl, (void **)&nccl_fn.coll_##name, 1, "libnccl.so.2") &&    \
      resolve(lib, #nccl "Config", (void **)&nccl_fn.coll_config_##name, 0, \
              "libnccl.so.2") &&
#define NCCL_RESOLVE_P2P(name, nccl, ...) \
  resolve(lib, #nccl, (void **)&nccl_fn.p2p_##name, 1, "libnccl.so.2") &&
#define CU_RESOLVE(member, symbol, required, ...) \
  resolve(cu, symbol, (void **)&cu_fn.member, required, "libcuda.so.1") &&

/* Resolves every NCCL entry point (NCCL_SYMBOLS, nccl_lib.h); 0 on a
 * missing required one. */
static int resolve_nccl(void *lib) {
  return NCCL_SYMBOLS(NCCL_RESOLVE_TYPED, NCCL_RESOLVE_DECLARED,
                      NCCL_RESOLVE_COLL, NCCL_RESOLVE_P2P) 1;
}

/* Reads the library's version and picks its layouts; 0 (message set) for
 * a version ncore cannot drive. */
static int check_version(void) {
  int code = 0;
  if (nccl_fn.ncclGetVersion(&code) != ncclSuccess || code <= 0) {
    snprintf(load_message, sizeof load_message,
             "libnccl.so.2 (%s): ncclGetVersion failed", loaded_nccl_path);
    return 0;
  }
  if (code < NCORE_NCCL_OLDEST) {
    snprintf(load_message, sizeof load_message,
             "libnccl.so.2 (%s) is NCCL %s; ncore needs NCCL %s or newer",
             loaded_nccl_path, nccl_version_text(code),
             nccl_version_text(NCORE_NCCL_OLDEST));
    return 0;
  }
  nccl_layouts_select(code);
  return 1;
}

/* Resolves every driver entry point (CUDA_SYMBOLS, nccl_lib.h) by its
 * exported, versioned name; 0 on a missing required one. */
static int resolve_cuda(void *cu) { return CUDA_SYMBOLS(CU_RESOLVE) 1; }

/* The one-time load: libraries, symbols, driver init, device count. */
static void load_once_body(void) {
  char searched[1536] = "";
  void *lib = open_nccl(searched, sizeof searched);
  if (lib == NULL) {
    const char *env = getenv("NCORE_NCCL_LIBRARY");
    load_status = NCORE_ERR_UNAVAILABLE;
    snprintf(load_message, sizeof load_message,
             "libnccl.so.2 not found (searched: %s)%s%s", searched,
             env && *env ? "; dlopen said: " : "", env && *env ? dlerror() : "");
    return;
  }
  if (!resolve_nccl(lib) || !check_version()) {
    load_status = NCORE_ERR_UNAVAILABLE;
    return;
  }
  const char *cuda = getenv("NCORE_CUDA_LIBRARY");
  void *cu = dlopen(cuda && *cuda ? cuda : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cu == NULL) {
    load_status = NCORE_ERR_UNAVAILABLE;
    snprintf(load_message, sizeof load_message,
             "libcuda.so.1 not found (no NVIDIA driver on this machine?)");
    return;
  }
  if (!resolve_cuda(cu)) {
    load_status = NCORE_ERR_UNAVAILABLE;
    return;
  }
  CUresult r = cu_fn.Init(0);
  int count = 0;
  if (r == CUDA_SUCCESS) r = cu_fn.DeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    const char *name = "?";
    if (r != CUDA_SUCCESS) cu_fn.GetErrorName(r, &name);
    load_status = NCORE_ERR_UNAVAILABLE;
    if (r != CUDA_SUCCESS)
      snprintf(load_message, sizeof load_message,
               "no CUDA device (cuInit/cuDeviceGetCount failed: %s)", name);
    else
      snprintf(load_message, sizeof load_message,
               "no CUDA device (cuDeviceGetCount returned 0)");
  }
}

atomic_int nccl_loaded;

ncore_status_t nccl_load_first(void) {
  pthread_once(&load_once, load_once_body);
  if (load_status != NCORE_OK)
    return core_error(load_status, "nccl backend: %s", load_message);
  atomic_store_explicit(&nccl_loaded, 1, memory_order_release);
  return NCORE_OK;
}

const char *nccl_loaded_path(void) { return loaded_nccl_path; }

ncore_status_t nccl_require(const void *fn, int since, const char *what) {
  /* A build without the call: */
  if (fn == NULL && nccl_runtime_version() >= since)
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "%s: the loaded libnccl.so.2 (%s, NCCL %s) does not "
                      "export it", what, nccl_loaded_path(),
                      nccl_version_text(nccl_runtime_version()));
  return nccl_require_version(since, what);
}

ncore_status_t nccl_require_version(int since, const char *what) {
  if (nccl_runtime_version() >= since) return NCORE_OK;
  char needed[32];
  snprintf(needed, sizeof needed, "%s", nccl_version_text(since));
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "%s needs NCCL %s or newer; the loaded libnccl.so.2 (%s) "
                    "is NCCL %s", what, needed, nccl_loaded_path(),
                    nccl_version_text(nccl_runtime_version()));
}
