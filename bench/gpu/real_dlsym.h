/* bench/gpu/real_dlsym.h — glibc's own dlsym, for the preload libraries
 * that interpose dlsym (callcount.c, calltime.c). dlsym is versioned in
 * glibc (GLIBC_2.34 since the libdl merge, GLIBC_2.2.5 before), and
 * dlsym(RTLD_NEXT, "dlsym") would find the interposer itself, so the real
 * one is asked for by version. */
#ifndef NCORE_BENCH_GPU_REAL_DLSYM_H
#define NCORE_BENCH_GPU_REAL_DLSYM_H

#include <dlfcn.h>
#include <stdlib.h>

static void *(*real_dlsym)(void *, const char *);

/* Sets real_dlsym; aborts where neither version exists (not glibc). */
static void find_real_dlsym(void) {
  *(void **)&real_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (real_dlsym == NULL)
    *(void **)&real_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  if (real_dlsym == NULL) abort();
}

#endif
