/* core/host — where a process runs, for the host backend's one-machine
 * rule. Ranks of a host communicator share memory: they must run on one
 * machine (the boot id), see each other's abstract sockets (one network
 * namespace: the rendezvous) and each other's /proc/<pid>/fd (one PID
 * namespace: windows and one-copy sends map a peer's memfd there). A unique
 * id carries its creator's identity, so a rank elsewhere fails at once
 * instead of waiting for a rank 0 it can never reach. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "identity.h"

#include "../error.h"

static host_identity_t self;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static uint64_t namespace_inode(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void read_self(void) {
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f != NULL) {
    if (fgets(self.boot_id, sizeof self.boot_id, f) == NULL) self.boot_id[0] = '\0';
    self.boot_id[strcspn(self.boot_id, "\n")] = '\0';
    fclose(f);
  }
  self.net_ns = namespace_inode("/proc/self/ns/net");
  self.pid_ns = namespace_inode("/proc/self/ns/pid");
}

const host_identity_t *host_identity_self(void) {
  pthread_once(&self_once, read_self);
  return &self;
}

ncore_status_t host_identity_check(const host_identity_t *made) {
  const host_identity_t *me = host_identity_self();
  char where[160];
  if (made->boot_id[0] && me->boot_id[0] &&
      strncmp(made->boot_id, me->boot_id, sizeof made->boot_id) != 0)
    snprintf(where, sizeof where, "on another machine (boot id %.36s; this "
             "one's is %.36s)", made->boot_id, me->boot_id);
  else if (made->net_ns && me->net_ns && made->net_ns != me->net_ns)
    snprintf(where, sizeof where, "in another network namespace (net:[%llu]; "
             "this rank is in net:[%llu])", (unsigned long long)made->net_ns,
             (unsigned long long)me->net_ns);
  else if (made->pid_ns && me->pid_ns && made->pid_ns != me->pid_ns)
    snprintf(where, sizeof where, "in another PID namespace (pid:[%llu]; "
             "this rank is in pid:[%llu])", (unsigned long long)made->pid_ns,
             (unsigned long long)me->pid_ns);
  else
    return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "id: made %s: the host backend joins the ranks of one "
                    "machine, which share memory; ranks on several machines "
                    "need the NCCL backend (NCORE_BACKEND=nccl)", where);
}
