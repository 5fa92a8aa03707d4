/* core — the cached process id of core/process.h. glibc's getpid() is a
 * system call; the id only changes in a fork() child, where the atfork
 * handler renews it for the child's one thread. */
#include <pthread.h>
#include <unistd.h>

#include "process.h"

static pthread_once_t handler_once = PTHREAD_ONCE_INIT;

static void renew_in_child(void) { core_thread.process_id = getpid(); }

static void register_handler(void) {
  pthread_atfork(NULL, NULL, renew_in_child);
}

pid_t core_process_id_first(void) {
  pthread_once(&handler_once, register_handler);
  core_thread.process_id = getpid();
  return core_thread.process_id;
}
