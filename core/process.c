/* core — the cached process id of core/process.h. glibc's getpid() is a
 * system call; the id only changes in a fork() child, where the atfork
 * handler renews it. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "process.h"

static atomic_int cached_pid;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;

static void renew_in_child(void) { atomic_store(&cached_pid, (int)getpid()); }
static void register_handler(void) {
  pthread_atfork(NULL, NULL, renew_in_child);
  atomic_store(&cached_pid, (int)getpid());
}

pid_t core_process_id(void) {
  pthread_once(&handler_once, register_handler);
  return (pid_t)atomic_load_explicit(&cached_pid, memory_order_relaxed);
}
