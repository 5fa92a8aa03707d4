/* core — the cached process id of core/process.h. glibc's getpid() is a
 * system call; the id only changes in a fork() child, where the atfork
 * handler renews it. The library's constructor caches it, so that a call
 * reads it without a pthread_once. */
#include <pthread.h>
#include <unistd.h>

#include "process.h"

atomic_int core_process_cached_id;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;

static void renew_in_child(void) {
  atomic_store(&core_process_cached_id, (int)getpid());
}

static void register_handler(void) {
  pthread_atfork(NULL, NULL, renew_in_child);
  atomic_store(&core_process_cached_id, (int)getpid());
}

pid_t core_process_id_first(void) {
  pthread_once(&handler_once, register_handler);
  return (pid_t)atomic_load(&core_process_cached_id);
}

__attribute__((constructor)) static void cache_at_load(void) {
  (void)core_process_id_first();
}
